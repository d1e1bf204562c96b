// --max-in-flight (docs/workloads.md "Load models"): a gateway's cap in front of the server. An arrival waits here
// until fewer than `max` of this runner's requests are in flight; arrivals go in the order they came.
export interface InFlightCap {
  // Resolves true once the request may go (it then counts as in flight until release), false when the signal
  // aborts first (it never went).
  acquire(signal: AbortSignal): Promise<boolean>;
  release(): void;
  readonly inFlight: number;
}

export function inFlightCap(max: number): InFlightCap {
  if (!(Number.isInteger(max) && max >= 1)) throw new Error(`an in-flight cap of ${max}`);
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  return {
    get inFlight() {
      return inFlight;
    },
    acquire(signal) {
      if (signal.aborted) return Promise.resolve(false);
      if (inFlight < max && waiting.length === 0) {
        inFlight += 1;
        return Promise.resolve(true);
      }
      return new Promise<boolean>((resolve) => {
        const go = () => {
          signal.removeEventListener('abort', stop);
          inFlight += 1;
          resolve(true);
        };
        const stop = () => {
          const at = waiting.indexOf(go);
          if (at >= 0) waiting.splice(at, 1);
          resolve(false);
        };
        waiting.push(go);
        signal.addEventListener('abort', stop, { once: true });
      });
    },
    release() {
      inFlight -= 1;
      if (inFlight < max) waiting.shift()?.();
    },
  };
}
