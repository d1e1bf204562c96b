import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSim } from '../../src/sim/index.js';
import { runCliInProcess } from '../helpers/cli.js';

const now = () => performance.timeOrigin + performance.now();

describe('startSim over HTTP', () => {
  it('streams, logs the truth (memory and file) and reports its lag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-'));
    const truthLog = join(dir, 'truth.jsonl');
    const sim = await startSim({ profile: 'tiny', truthLog, seed: 2 });
    try {
      expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sim.baseUrl).toBe(`${sim.url}/v1`);
      const res = await fetch(`${sim.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'req-1' },
        body: JSON.stringify({
          model: 'sim/tiny',
          messages: [{ role: 'user', content: 'hi there' }],
          max_tokens: 50,
          ignore_eos: true,
          stream: true,
        }),
      });
      const reader = res.body!.getReader();
      const dec = new TextDecoder();
      let text = '';
      let firstTokenAt: number | undefined;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const t = now();
        text += dec.decode(value);
        if (firstTokenAt === undefined && /"(reasoning|content)":"[^"]/.test(text)) firstTokenAt = t;
      }
      expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
      const [truth] = sim.truth();
      expect(truth).toMatchObject({
        requestId: 'req-1',
        api: 'chat',
        stream: true,
        reason: 'length',
        outputTokens: 50,
      });
      // The client sees the first token after the sim sent it (same clock; loose upper bound for loaded CI).
      expect(firstTokenAt! - truth!.firstTokenMs!).toBeGreaterThanOrEqual(-0.5);
      expect(firstTokenAt! - truth!.firstTokenMs!).toBeLessThan(2000);
      const lag = sim.lag();
      for (const v of [lag.maxMs, lag.p99Ms, lag.meanMs]) expect(Number.isFinite(v)).toBe(true);
      const lagHttp = (await (await fetch(`${sim.url}/sim/lag`)).json()) as {
        samples: number;
        maxPassMs: number;
      };
      expect(lagHttp.samples).toBeGreaterThan(0);
      expect(lagHttp.maxPassMs).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
    const lines = readFileSync(truthLog, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ requestId: 'req-1', outputTokens: 50 });
  });

  it('close() ends open streams and resolves', async () => {
    const sim = await startSim({ profile: 'tiny', overrides: { timeScale: 0.01 } });
    const res = await fetch(`${sim.baseUrl}/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'sim/tiny', prompt: 'x', max_tokens: 1000, stream: true }),
    });
    expect(res.status).toBe(200);
    const body = res.text().catch(() => 'closed');
    await sim.close();
    await body;
  });

  it('sim CLI: unknown profile is one clear line with a stable code', async () => {
    const r = await runCliInProcess(['sim', '--profile', 'no-such-profile']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^error \[CONFIG_INVALID\]: unknown sim profile "no-such-profile"/);
    expect(r.stderr).not.toContain('    at ');
  });
});
