import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSim } from '../../src/sim/index.js';
import type { Flavor } from '../../src/sim/index.js';
import { runCliInProcess } from '../helpers/cli.js';

// A run against each sim flavor completes and its result carries engine, version, max
// context and KV capacity where the flavor exposes them, without any flag; the API key is nowhere.
const KEY = 'sk-flavor-run-distinctive-8e1f';
const EXPECT: Record<Flavor, { maxModelLen?: number; kv?: number; metrics: boolean }> = {
  vllm: { maxModelLen: 32768, kv: 300000, metrics: true },
  sglang: { maxModelLen: 32768, kv: 300000, metrics: true },
  llamacpp: { maxModelLen: 18944, kv: 16 * 18944, metrics: true }, // -c 300000 -np 16: 16 slots of GGML_PAD(300032 / 16, 256)
  tgi: { maxModelLen: 32768, kv: 300000, metrics: true },
  ollama: { maxModelLen: 32768, metrics: false },
  trtllm: { kv: 300000, metrics: true },
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

// Sequential: six CLI runs at once starve a 2-core CI machine.
describe('run against each sim flavor', () => {
  it.each(Object.keys(EXPECT) as Flavor[])(
    '%s',
    async (flavor) => {
      const exp = EXPECT[flavor];
      const sim = await startSim({ profile: 'tiny', flavor, apiKey: KEY });
      const out = mkdtempSync(join(tmpdir(), `run-${flavor}-`));
      try {
        const r = await runCliInProcess(
          [
            'run',
            '--base-url',
            sim.baseUrl,
            '--contexts',
            '1K',
            '--prefill-contexts',
            '1K',
            '--concurrency',
            '1',
            '--duration',
            '1',
            '--max-output',
            '64',
            '--out',
            out,
            '--quiet',
          ],
          { env: { OPENAI_API_KEY: KEY } },
        );
        expect(r.code, r.stderr).toBe(0);
        const resultPath = filesUnder(out).find((f) => f.endsWith('result.json'));
        expect(resultPath).toBeDefined();
        const result = JSON.parse(readFileSync(resultPath!, 'utf8')) as {
          status: string;
          engine: { name: string; version?: string };
          target: { maxModelLen?: number; kvCapacityTokens?: number; metricsAvailable: boolean };
          decode: Array<{ status: string; serverSamples?: unknown[] }>;
        };
        expect(result.status).toBe('complete');
        expect(result.engine.name).toBe(flavor);
        expect(result.engine.version).toBe(sim.profile.engine.version);
        expect(result.target.maxModelLen).toBe(exp.maxModelLen);
        expect(result.target.kvCapacityTokens).toBe(exp.kv);
        expect(result.target.metricsAvailable).toBe(exp.metrics);
        if (exp.metrics) expect(result.decode[0]?.serverSamples?.length ?? 0).toBeGreaterThan(0);
        for (const f of filesUnder(out)) expect(readFileSync(f, 'utf8').includes(KEY), f).toBe(false);
        expect(r.stdout + r.stderr).not.toContain(KEY);
      } finally {
        await sim.close();
      }
    },
    120_000,
  );
});
