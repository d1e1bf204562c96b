import { VirtualClock } from '../../src/sim/clock.js';
import type { SimContext } from '../../src/sim/context.js';
import { handle } from '../../src/sim/handler.js';
import type { ProfileInput } from '../../src/sim/profile-schema.js';
import { createSimContext, type SimOptions } from '../../src/sim/server.js';
import { RecordingWriter } from '../../src/sim/writer.js';

export interface Harness {
  ctx: SimContext;
  clock: VirtualClock;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): RecordingWriter;
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): RecordingWriter; // no time advance
}

export function harness(
  opts: Omit<SimOptions, 'clock'> & { overrides?: Partial<ProfileInput> } = {},
): Harness {
  const clock = new VirtualClock();
  const ctx = createSimContext({ profile: 'tiny', seed: 1, ...opts, clock } as SimOptions);
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const w = new RecordingWriter(() => clock.now());
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    handle(
      ctx,
      {
        method,
        url: path,
        headers: lower,
        body: body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body),
        arrivalMs: clock.now(),
      },
      w,
    );
    return w;
  };
  return {
    ctx,
    clock,
    send,
    call(method, path, body, headers) {
      const w = send(method, path, body, headers);
      clock.advance(60_000);
      return w;
    },
  };
}

// SSE payloads (after "data: "), trimmed like a tolerant client; comments kept as ":..." entries.
export function events(body: string): string[] {
  return body
    .split('\n\n')
    .filter((e) => e.length > 0)
    .map((e) => (e.startsWith('data: ') ? e.slice(6).trimEnd() : e));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test access to parsed engine JSON
export function jsonEvents(body: string): Array<Record<string, any>> {
  return (
    events(body)
      .filter((e) => e !== '[DONE]' && !e.startsWith(':'))
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      .map((e) => JSON.parse(e) as Record<string, any>)
  );
}

export const chatBody = (over: Record<string, unknown> = {}) => ({
  model: 'sim/tiny',
  messages: [{ role: 'user', content: 'Tell me a long story about the sea.' }],
  max_tokens: 12,
  ignore_eos: true,
  stream: true,
  ...over,
});
