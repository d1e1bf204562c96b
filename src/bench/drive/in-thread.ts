import { type Clock } from '../../clock.js';
import { setMaxListeners } from 'node:events';
import type { Sender, Sent } from './sender.js';
import type { SessionRunner } from './runner.js';
import { runSlotLoop, slotsOfSpec, type SlotSpec } from './session-loop.js';

// The sessions in this thread: one session loop each, sharing the thread's event loop and connection pool.
export function inThreadSessions(sender: Sender, clock: Clock, spec: SlotSpec): SessionRunner {
  const inflight = new AbortController();
  setMaxListeners(0, inflight.signal); // one listener per request in flight
  const sent: Sent[] = [];
  let phase: 'ramp' | 'window' = 'ramp';
  let closing = false;
  let loops: Promise<void>[] = [];
  return {
    async start(events) {
      setMaxListeners(0, events.early);
      loops = slotsOfSpec(spec).map((slot) =>
        runSlotLoop(slot, sender, clock, spec, inflight.signal, events.early, {
          closing: () => closing,
          phase: () => phase,
          onFirstToken: (slot) => events.onFirstToken(slot),
          onSent: (s) => sent.push(s),
          onError: (s, code) => events.onError(code ? { code, sent: s } : undefined),
        }),
      );
    },
    openWindow() {
      phase = 'window';
    },
    close() {
      closing = true;
      inflight.abort();
    },
    async finished() {
      await Promise.all(loops);
      return sent;
    },
  };
}
