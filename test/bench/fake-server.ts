import type { StreamRequestOptions } from '../../src/client/stream.js';
import type { RequestRecord } from '../../src/client/types.js';

// A transport double: a server with `slots` sequences that emits `tokensPerChunk` tokens every stepMs per running
// request, admits in arrival order, and records what it did. Real timers, short steps: tests stay sub-second.
export function fakeServer(o: {
  stepMs: number;
  slots: number;
  ttftMs: number;
  tokensPerChunk?: number;
  failEvery?: number;
}) {
  const sent: Array<{ requestId?: string; maxTokens: number }> = [];
  let running = 0;
  const queue: Array<() => void> = [];
  let n = 0;
  const admit = () => {
    while (running < o.slots && queue.length) {
      running += 1;
      queue.shift()!();
    }
  };
  const stream = (opts: StreamRequestOptions): Promise<RequestRecord> => {
    const now = opts.now ?? (() => performance.timeOrigin + performance.now());
    const maxTokens = Number(opts.body.max_tokens ?? 16);
    sent.push({ requestId: opts.requestId, maxTokens });
    const sentAtMs = now();
    const idx = ++n;
    return new Promise((resolve) => {
      const chunks: Array<[number, number]> = [];
      let produced = 0;
      let timer: NodeJS.Timeout | undefined;
      let admitted = false;
      const finish = (ok: boolean, kind?: 'aborted' | 'http_status') => {
        if (timer) clearInterval(timer);
        if (admitted) {
          running -= 1;
          admit();
        } else {
          const i = queue.indexOf(start);
          if (i >= 0) queue.splice(i, 1);
        }
        const rec: RequestRecord = {
          sentAtMs,
          endAtMs: now(),
          chunks,
          outputTokens: produced,
          tokenCountSource: 'final_usage',
          ok,
          promptTokens: 100,
          cachedTokens: 90,
        };
        if (chunks[0]) rec.firstTokenAtMs = chunks[0][0];
        if (kind) rec.error = { kind, message: kind, ...(kind === 'http_status' ? { status: 500 } : {}) };
        resolve(rec);
      };
      const onAbort = () => finish(false, 'aborted');
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const start = () => {
        admitted = true;
        setTimeout(() => {
          if (opts.signal?.aborted) return;
          timer = setInterval(() => {
            const k = Math.min(o.tokensPerChunk ?? 1, maxTokens - produced);
            produced += k;
            chunks.push([now(), k]);
            if (chunks.length === 1) opts.onFirstToken?.(chunks[0]![0]);
            if (produced >= maxTokens) {
              opts.signal?.removeEventListener('abort', onAbort);
              finish(true);
            }
          }, o.stepMs);
        }, o.ttftMs);
      };
      if (o.failEvery && idx % o.failEvery === 0) {
        setTimeout(() => finish(false, 'http_status'), 1);
        return;
      }
      queue.push(start);
      admit();
    });
  };
  return { stream, sent, running: () => running, waiting: () => queue.length };
}
