import { describe, expect, it } from 'vitest';
import { BenchError } from '../../src/errors.js';
import { FaultPlan, parseFaults } from '../../src/sim/faults.js';
import { chatBody, events, harness } from './handler-helpers.js';

describe('fault spec grammar', () => {
  it('parses names, rate shorthand, count, after, at and ms', () => {
    expect(parseFaults('cut:0.05,500:count=3,stall:rate=0.01:ms=2000,bad-json:at=5:after=10')).toEqual([
      { name: 'cut', rate: 0.05, after: 0, ms: 2000 },
      { name: '500', count: 3, after: 0, ms: 2000 },
      { name: 'stall', rate: 0.01, after: 0, ms: 2000 },
      { name: 'bad-json', rate: 1, after: 10, atTokens: 5, ms: 2000 },
    ]);
    expect(parseFaults('')).toEqual([]);
    expect(parseFaults('refused,malformed')[1]!.name).toBe('bad-json');
  });

  it('rejects unknown names, parameters and bad values with a USAGE error', () => {
    for (const bad of ['explode', 'cut:rate=2', 'cut:foo=1', 'stall:ms=abc']) {
      expect(() => parseFaults(bad)).toThrow(BenchError);
    }
  });

  it('count fires exactly N times; rate is seeded and reproducible', () => {
    const count = new FaultPlan(parseFaults('500:count=3'), 1);
    expect(Array.from({ length: 10 }, () => count.decide()?.name ?? '-')).toEqual([
      '500',
      '500',
      '500',
      '-',
      '-',
      '-',
      '-',
      '-',
      '-',
      '-',
    ]);
    const draw = (seed: number) => {
      const p = new FaultPlan(parseFaults('cut:0.3'), seed);
      return Array.from({ length: 200 }, () => (p.decide() ? 1 : 0));
    };
    expect(draw(5)).toEqual(draw(5));
    expect(draw(5)).not.toEqual(draw(6));
    const hits = draw(5).reduce((a: number, b) => a + b, 0);
    expect(hits).toBeGreaterThan(35);
    expect(hits).toBeLessThan(85);
    const after = new FaultPlan(parseFaults('429:after=2:count=1'), 1);
    expect([after.decide(), after.decide(), after.decide()?.name]).toEqual([undefined, undefined, '429']);
  });
});

describe('fault effects', () => {
  const run = (faults: string, body = chatBody({ max_tokens: 40 })) => {
    const h = harness({ faults, overrides: { reasoningTokens: 0 } });
    const w = h.call('POST', '/v1/chat/completions', body);
    return { h, w, t: h.ctx.truth.all()[0]! };
  };

  it('refuse drops the connection without a response', () => {
    const { w, t } = run('refuse');
    expect([w.destroyed, w.status]).toEqual([true, 0]);
    expect(t).toMatchObject({ reason: 'error', fault: 'refuse' });
  });

  it('401, 404, too-long, 429, 503 and 500 answer with the flavor status and body', () => {
    expect(run('401').w.status).toBe(401);
    expect(run('404').w.status).toBe(404);
    const tl = run('too-long').w;
    expect(tl.status).toBe(400);
    expect(JSON.parse(tl.body).error.message).toContain('maximum context length');
    expect(run('429').w.status).toBe(429);
    expect(run('503').w.status).toBe(503);
    const e = run('500');
    expect(e.w.status).toBe(500);
    expect(e.t).toMatchObject({ status: 500, fault: '500', reason: 'error' });
  });

  it('cut closes the stream mid-way without [DONE]', () => {
    const { w, t } = run('cut:at=10');
    expect(w.destroyed).toBe(true);
    expect(w.body).not.toContain('[DONE]');
    expect(t.reason).toBe('error');
    expect(t.outputTokens).toBeGreaterThanOrEqual(10);
    expect(t.outputTokens).toBeLessThan(40);
  });

  it('error-event sends the flavor error event then [DONE] (vllm)', () => {
    const { w, t } = run('error-event:at=5');
    const ev = events(w.body);
    expect(ev.at(-1)).toBe('[DONE]');
    expect(JSON.parse(ev.at(-2)!).error.message).toContain('simulated');
    expect(t.reason).toBe('error');
  });

  it('bad-json inserts one unparseable chunk and the stream continues', () => {
    const { w, t } = run('bad-json:at=3');
    const bad = events(w.body).filter((e) => {
      if (e === '[DONE]') return false;
      try {
        JSON.parse(e);
        return false;
      } catch {
        return true;
      }
    });
    expect(bad).toHaveLength(1);
    expect(t.outputTokens).toBe(40);
  });

  it('stall holds every byte for ms, then flushes; the truth has the real send times', () => {
    const { w, t } = run('stall:at=5:ms=3000');
    const gaps = w.writes.slice(1).map((x, i) => x.atMs - w.writes[i]!.atMs);
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(3000);
    const tGaps = t.chunks.slice(1).map((c, i) => c[0] - t.chunks[i]![0]);
    expect(Math.max(...tGaps)).toBeGreaterThanOrEqual(3000);
    expect(t.outputTokens).toBe(40);
    expect(t.reason).toBe('length');
  });

  it('slow-headers delays the response head by ms', () => {
    const h = harness({ faults: 'slow-headers:ms=1500' });
    const w = h.send('POST', '/v1/chat/completions', chatBody());
    h.clock.advance(1400);
    expect(w.headSent).toBe(false);
    h.clock.advance(200);
    expect(w.headSent).toBe(true);
    h.clock.advance(10_000);
    expect(events(w.body).at(-1)).toBe('[DONE]');
  });
});
