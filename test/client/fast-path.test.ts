// The fast path covers every chunk shape the runner asks engines for: each
// flavor of the sim, chat and completions, continuous usage where the engine offers it, reasoning, several
// tokens per chunk. The record is the one the full parse gives, and only the first, last, usage-only,
// error and unknown events take the full parse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpPost } from '../../src/client/http.js';
import { FLAVORS, startSim, type Flavor, type SimHandle } from '../../src/sim/index.js';
import { feed, timeless, eventwise } from './feed.js';
import { StreamSession } from '../../src/client/decode/stream-session.js';

const CONTINUOUS: ReadonlySet<Flavor> = new Set(['vllm', 'sglang', 'trtllm']);

async function transcript(sim: SimHandle, api: 'chat' | 'completions', continuous: boolean): Promise<Buffer> {
  const body: Record<string, unknown> = {
    model: sim.profile.servedModelName,
    stream: true,
    max_tokens: 96,
    ignore_eos: true,
    ...(api === 'chat'
      ? { messages: [{ role: 'user', content: 'tell me a long story' }] }
      : { prompt: 'tell me a long story' }),
    ...(continuous ? { stream_options: { include_usage: true, continuous_usage_stats: true } } : {}),
  };
  const r = await httpPost(`${sim.baseUrl}/${api === 'chat' ? 'chat/completions' : 'completions'}`, body);
  if (!r.ok) throw new Error(r.message);
  return Buffer.from(r.text);
}

function parses(body: Buffer): { full: number; fast: number; events: number } {
  const s = new StreamSession();
  s.headers(200, 'text/event-stream', 0);
  s.data(body, 1);
  s.end(2);
  const events = body
    .toString()
    .split('\n\n')
    .filter((e) => e.startsWith('data: {')).length;
  return { ...s.parses, events };
}

describe.each(FLAVORS)('fast path on the %s flavor', (flavor) => {
  let sim: SimHandle;
  beforeAll(async () => {
    sim = await startSim({
      profile: 'tiny',
      flavor,
      overrides: {
        speculative: { k: 4, meanTokens: 2.5 },
        reasoningTokens: 8,
        earlyStopRate: 0,
        decodeStepMs: [
          [1, 4],
          [16, 4],
        ],
      },
    });
  });
  afterAll(() => sim.close());

  const cases = [
    ['chat', false],
    ['chat', true],
    ['completions', false],
    ['completions', true],
  ] as const;
  it.each(cases)(
    '%s, continuous usage %s: same record as the full parse, full parses only at the edges',
    async (api, continuous) => {
      if (continuous && !CONTINUOUS.has(flavor)) return;
      const body = await transcript(sim, api, continuous);
      const fast = await feed(body, eventwise(body), { keepText: true });
      const full = await feed(body, eventwise(body), { keepText: true, fastPath: false });
      expect(timeless(fast)).toEqual(timeless(full));
      expect(fast.chunks).toEqual(full.chunks);
      expect(fast.ok).toBe(true);
      if (continuous) expect(fast.tokenCountSource).toBe('continuous_usage');
      const p = parses(body);
      expect(p.fast + p.full).toBe(p.events);
      // first event, one per kind of text (reasoning, content), the finish and the usage-only events
      expect(p.full, `${p.full} full parses of ${p.events} events`).toBeLessThanOrEqual(6);
      if (p.events > 6) expect(p.fast).toBeGreaterThan(0);
    },
  );
});
