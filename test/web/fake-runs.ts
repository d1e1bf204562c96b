import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DecodeCell, PrefillPoint, RunResult } from '../../src/results/schema.js';
import { parseResult } from '../../src/results/schema.js';

// Synthetic result files for the results browser's tests and its 5,000-run benchmark: the demo's matrix
// (4 contexts × 4 concurrency levels, 5 prefill points), figures that drift with the run number, optional
// 95% intervals and server samples (which make a file as large as a real one).

export interface FakeRunOptions {
  model?: string;
  engine?: string;
  version?: string;
  gpu?: string;
  gpuCount?: number;
  startedAt?: string;
  status?: RunResult['status'];
  title?: string;
  launchCommand?: string;
  intervals?: boolean;
  samples?: number; // server samples per cell
  speed?: number; // multiplies every throughput
}

const CONTEXTS = [1024, 2048, 4096, 8192];
const CONCURRENCY = [1, 4, 8, 16];

export function fakeRun(i: number, o: FakeRunOptions = {}): RunResult {
  const speed = o.speed ?? 1 + ((i * 7919) % 200) / 1000; // 1.0..1.2, deterministic per run
  const decode: DecodeCell[] = [];
  for (const ctx of CONTEXTS)
    for (const n of CONCURRENCY) {
      const over = n * (ctx + 512) > 100_000;
      const total = over ? null : Math.round(60 * n ** 0.8 * (4096 / (ctx + 2048)) * speed * 10) / 10;
      const perReq = total === null ? null : Math.round((total / n) * 10) / 10;
      const ttft = over ? null : 80 + n * 20 + ctx / 100;
      decode.push({
        contextTokens: ctx,
        concurrency: n,
        status: over ? 'Over capacity' : n === 16 ? 'Requests queued' : 'Valid',
        totalTokensPerS: total,
        perRequestTokensPerS: perReq,
        ttftMs: ttft,
        tbtMs: perReq ? Math.round((1000 / perReq) * 10) / 10 : null,
        avgActive: over ? null : n,
        completed: over ? null : n * 3,
        outputTokens: total === null ? null : Math.round(total * 10),
        measuredS: over ? null : 10,
        ...(o.intervals && total !== null && perReq !== null && ttft !== null
          ? {
              intervals: {
                totalTokensPerS: { lo: total * 0.96, hi: total * 1.04 },
                perRequestTokensPerS: { lo: perReq * 0.95, hi: perReq * 1.05 },
                ttftMs: { lo: ttft * 0.9, hi: ttft * 1.1 },
                tbtMs: null,
              },
            }
          : {}),
        ...(o.samples && !over
          ? {
              serverSamples: Array.from({ length: o.samples }, (_, k) => ({
                tMs: k * 250,
                running: n,
                waiting: 0,
                kvUsage: Math.round(((n * ctx) / 100_000) * 1000) / 1000,
              })),
            }
          : {}),
      });
    }
  const prefill: PrefillPoint[] = [...CONTEXTS, 32512].map((ctx) => {
    const tps = Math.round(9000 * speed * (1 - ctx / 100_000));
    return {
      contextTokens: ctx,
      status: 'Valid',
      promptTokens: ctx + 6,
      ttftMs: Math.round((ctx / tps) * 1000),
      tokensPerS: tps,
      completed: 3,
      repeats: [0.98, 1, 1.02].map((f) => ({
        promptTokens: ctx + 6,
        ttftMs: Math.round((ctx / (tps * f)) * 1000),
        tokensPerS: Math.round(tps * f),
      })),
      ...(ctx === 32512 ? { decodeContext: false } : {}),
    };
  });
  const model = o.model ?? 'sim-model';
  return parseResult({
    schema: 'llm-inference-bench/result',
    version: 1,
    runId: `fake-${String(i).padStart(5, '0')}`,
    title: o.title ?? `${model} run ${i}`,
    tool: { name: 'llm-inference-bench', version: '0.7.0' },
    status: o.status ?? 'complete',
    startedAt: o.startedAt ?? new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
    decodeTest: 'Fixed duration',
    prefillMode: 'Measured during decode warm-up',
    target: { baseUrl: 'http://127.0.0.1:8000/v1', model, api: 'chat', metricsAvailable: true },
    engine: {
      name: o.engine ?? 'sim-vllm',
      ...(o.version !== undefined ? { version: o.version } : { version: '0.1.0' }),
    },
    hardware: { gpuName: o.gpu ?? 'Sim GPU', gpuCount: o.gpuCount ?? 1, source: 'sim' },
    ...(o.launchCommand ? { launchCommand: o.launchCommand } : {}),
    config: {
      contexts: CONTEXTS,
      prefillContexts: [...CONTEXTS, 32512],
      concurrency: CONCURRENCY,
      maxOutput: 512,
      duration: 10,
      prefillRepeats: 3,
      ignoreEos: true,
      sampling: {},
      seed: 1,
    },
    prefill,
    decode,
    warnings: [],
  });
}

/** Writes a result into root/dir/result.json, the layout `run` and `demo` write. */
export function writeRun(root: string, dir: string, r: RunResult): string {
  const at = join(root, dir);
  mkdirSync(at, { recursive: true });
  const file = join(at, 'result.json');
  writeFileSync(file, JSON.stringify(r, null, 2) + '\n');
  return file;
}
