import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchRun } from '../../src/bench/run.js';
import type { RunSettings } from '../../src/bench/settings.js';
import type { TargetInfo } from '../../src/target/types.js';
import { fakeServer } from './fake-server.js';

const info: TargetInfo = {
  engine: { name: 'generic' },
  models: ['m'],
  model: 'm',
  maxModelLen: 32768,
  kvCapacityTokens: 20000,
  metricsAvailable: false,
  extensions: {
    ignoreEos: true,
    minTokens: false,
    streamOptions: true,
    continuousUsage: false,
    maxCompletionTokens: false,
  },
  hardware: { source: 'none' },
};
const settings = (outDir: string, extra: Partial<RunSettings> = {}): RunSettings => ({
  baseUrl: 'http://127.0.0.1:9/v1',
  api: 'chat',
  contexts: [1024, 4096],
  prefillContexts: [1024],
  concurrency: [1, 4],
  maxOutput: 50,
  durationS: 0.2,
  prefillRepeats: 2,
  rampTimeoutS: 1,
  settleTimeoutS: 1,
  settlePauseS: 0.01,
  metricsIntervalS: 1,
  ignoreEos: true,
  sampling: {},
  seed: 1,
  outDir,
  reports: false,
  ...extra,
});
const deps = (srv: ReturnType<typeof fakeServer>) => ({
  probe: async () => info,
  stream: srv.stream,
  createPrompts: async () => ({
    prompt: async (c: number, slot: number) => ({ text: `p${c}-${slot}`, estTokens: c }),
  }),
  createSampler: () => undefined,
});

describe('BenchRun (fake transport, no network)', () => {
  it('is an object that can be started twice in one process', { timeout: 30_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-run-'));
    const srv = fakeServer({ stepMs: 2, slots: 8, ttftMs: 2 });
    const prompts: string[] = []; // "<context>-<slot>" of every request, from the prompt text the slot built
    const run = new BenchRun(settings(out), {
      ...deps(srv),
      stream: (o: Parameters<typeof srv.stream>[0]) => {
        prompts.push(/p(\d+-\d+)/.exec(JSON.stringify(o.body))?.[1] ?? 'none');
        return srv.stream(o);
      },
    });
    const a = await run.start();
    const firstRun = [...prompts];
    const b = await run.start();
    expect(a.result.runId).not.toBe(b.result.runId);
    for (const o of [a, b]) {
      expect(o.result.status).toBe('complete');
      // 4K x 4: 4 x (4096 + 50) = 16,584 <= 20,000 runs; all four cells measured
      expect(o.result.decode.map((c) => c.status)).toEqual(['Valid', 'Valid', 'Valid', 'Valid']);
      expect(o.result.prefill).toHaveLength(1);
      expect(o.result.prefill[0]!.repeats).toHaveLength(2);
      const onDisk = JSON.parse(readFileSync(o.resultPath, 'utf8'));
      expect(onDisk).toEqual(JSON.parse(JSON.stringify(o.result)));
    }
    // slot prompts: the connect request is slot 0; prefill repeat 1 is slot 1 (the cache the decode cells then
    // reuse), repeat 2 a fresh slot no cell uses; each context's cells use slots 1..N and no others
    expect(firstRun.slice(0, 3)).toEqual(['1024-0', '1024-1', expect.stringMatching(/^1024-\d+$/)]);
    const fresh = Number(firstRun[2]!.split('-')[1]);
    expect(fresh).toBeGreaterThan(4);
    for (const c of [1024, 4096]) {
      const slots = new Set(
        firstRun.slice(3).flatMap((p) => (p.startsWith(`${c}-`) ? [Number(p.split('-')[1])] : [])),
      );
      expect([...slots].sort((x, y) => x - y)).toEqual([1, 2, 3, 4]);
    }
    expect(prompts.length).toBe(srv.sent.length);
  });

  it(
    'interrupts at once and resumes in a new object without redoing finished cells',
    { timeout: 30_000 },
    async () => {
      const out = mkdtempSync(join(tmpdir(), 'lib-run-'));
      const srv = fakeServer({ stepMs: 2, slots: 8, ttftMs: 2 });
      const s = settings(out, { runId: 'x', durationS: 0.3, contexts: [1024], concurrency: [1, 2, 4] });
      const run = new BenchRun(s, {
        ...deps(srv),
        progress: {
          start() {},
          phase() {},
          prefillDone() {},
          cellDone() {
            run.interrupt();
          },
          warn() {},
          finish() {},
        },
      });
      const first = await run.start();
      expect(first.result.status).toBe('interrupted');
      expect(first.result.decode).toHaveLength(1);
      const again = await new BenchRun({ ...s, resumeDir: first.dir, runId: undefined }, deps(srv)).start();
      expect(again.result.status).toBe('complete');
      expect(again.result.runId).toBe('x');
      expect(again.result.decode.map((c) => c.concurrency)).toEqual([1, 2, 4]);
      expect(again.result.decode[0]).toEqual(first.result.decode[0]);
    },
  );
});
