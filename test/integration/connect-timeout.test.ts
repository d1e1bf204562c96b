// The connect timeout against an address that does not answer, on both transports. Only 127.0.0.1 is allowed,
// so the address is a listener that never accepts, its accept queue filled: the kernel answers no SYN, and the
// connect neither completes nor fails (test/helpers/real-stacks startUnansweredListener; a child process, so
// the integration tier).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamRequest } from '../../src/client/stream.js';
import { startUnansweredListener } from '../helpers/real-stacks/index.js';

let listener: Awaited<ReturnType<typeof startUnansweredListener>>;
beforeAll(async () => {
  listener = await startUnansweredListener();
  await listener.fill();
});
afterAll(() => listener.stop());

describe('connect timeout', () => {
  it.each(['lean', 'undici'] as const)(
    '%s: a connect that never completes ends at the connect timeout',
    async (httpClient) => {
      const t0 = performance.now();
      const r = await streamRequest({
        baseUrl: `http://127.0.0.1:${listener.port}/v1`,
        api: 'chat',
        body: { model: 'm' },
        httpClient,
        timeouts: { connectMs: 400 },
      });
      const took = performance.now() - t0;
      expect(r.error?.kind).toBe('timeout_connect');
      expect(r.error?.message).toMatch(/^connect timeout after \d+ ms$/);
      expect(r.resent).toBeUndefined();
      expect(took).toBeGreaterThanOrEqual(395);
      expect(took).toBeLessThan(10_000); // the connect timeout ended it, not the first-token one (60 s)
      expect(r.sentAtMs).toBe(r.calledAtMs); // never written
    },
  );
});
