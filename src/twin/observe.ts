import type { CellStatus, RunResult } from '../results/schema.js';
import { cellKey, kvDemandTokens, queuedSeats, type Seats } from '../cell-rules.js';
import { BenchError } from '../errors.js';
import { fittedMetadata, type FittedMetadata } from './fitted-metadata.js';

// What a fit can use from results: one row per decode cell and per prefill point, with the run settings that
// shape them (max output and window), so results with different settings fit together.

export interface DecodeObs {
  source: string; // which result
  contextTokens: number;
  concurrency: number;
  status: CellStatus;
  maxOutput: number;
  windowS: number;
  totalTokensPerS: number | null;
  perRequestTokensPerS: number | null;
  ttftMs: number | null;
  ttftP90Ms: number | null; // runs carry it; imported seeds have one TTFT per cell
  tbtMs: number | null;
  avgActive: number | null;
  seats: Seats | null; // a queued cell's seats, as the answer reads them (src/cell-rules.ts queuedSeats)
  allStreamed: boolean; // the client saw all N streaming at once: the server has N seats at least
  rampTimedOut: boolean; // the window opened before every slot had a first token: prefill ran inside it
  previousLevel: number; // the level the run measured before this one at its context (its prompts cached), or 0
  specAcceptanceLength: number | null;
  chunkGapP50Ms: number | null;
}

export interface PrefillObs {
  source: string;
  contextTokens: number;
  promptTokens: number;
  ttftMs: number;
  tokensPerS: number;
}

export interface Observations {
  decode: DecodeObs[];
  prefill: PrefillObs[];
  kvCapacityTokens?: number; // reported by the server (discovery)
  maxModelLen?: number;
  levels: number[]; // the concurrency levels the results planned, ascending
  model: string;
  engine: string;
  hardware: RunResult['hardware'];
  sources: string[];
  metadata?: FittedMetadata; // what predictions carry of these results (src/twin/fitted-metadata.ts)
}

export const demand = (o: { contextTokens: number; concurrency: number; maxOutput: number }): number =>
  kvDemandTokens(o.contextTokens, o.concurrency, o.maxOutput);

type Sourced = { result: RunResult; source: string };

// What makes two results the same server for a fit: the model, the GPUs (where both runs know them), the engine.
function serverParts(r: RunResult): Array<[what: string, value: string | undefined]> {
  const h = r.hardware;
  const gpu = h.gpuName ? `${h.gpuCount ? `${h.gpuCount} × ` : ''}${h.gpuName}` : undefined;
  return [
    ['model', r.target.model],
    ['GPU', gpu],
    ['engine', r.engine.name],
  ];
}

/** Refuses results of different servers: one twin is one server, and their cells would contradict each other. */
export function refuseMixedServers(results: readonly Sourced[]): void {
  const [a, ...rest] = results.filter((r) => !r.result.predicted);
  if (!a) return;
  const pa = serverParts(a.result);
  for (const b of rest) {
    const pb = serverParts(b.result);
    const differ = pa
      .map(([what, va], i) => [what, va, pb[i]![1]] as const)
      .filter(([, va, vb]) => va !== undefined && vb !== undefined && va !== vb);
    if (differ.length === 0) continue;
    const words = differ.map(([what, va, vb]) => `${what} ${va} vs ${vb}`).join(', ');
    throw new BenchError(
      'USAGE',
      `these results are of different servers (${words}: ${a.source} vs ${b.source}); fit one server's runs.`,
    );
  }
}

export function observe(results: readonly Sourced[]): Observations {
  refuseMixedServers(results);
  const decode: DecodeObs[] = [];
  const prefill: PrefillObs[] = [];
  let kv: number | undefined;
  let maxLen: number | undefined;
  const levels = new Set<number>();
  for (const { result: r, source } of results) {
    if (r.predicted) continue; // a prediction is not a measurement
    kv ??= r.target.kvCapacityTokens;
    maxLen = Math.max(maxLen ?? 0, r.target.maxModelLen ?? 0) || undefined;
    for (const n of r.config.concurrency) levels.add(n);
    const ranBefore = (c: { contextTokens: number; concurrency: number }) =>
      Math.max(
        0,
        ...r.decode
          .filter((x) => x.contextTokens === c.contextTokens && x.concurrency < c.concurrency)
          .filter((x) => x.status !== 'Over capacity')
          .map((x) => x.concurrency),
      );
    for (const c of r.decode) {
      decode.push({
        source,
        contextTokens: c.contextTokens,
        concurrency: c.concurrency,
        status: c.status,
        maxOutput: r.config.maxOutput,
        windowS: c.measuredS ?? r.config.duration,
        totalTokensPerS: c.totalTokensPerS,
        perRequestTokensPerS: c.perRequestTokensPerS,
        ttftMs: c.ttftMs,
        ttftP90Ms: c.ttft?.p90 ?? null,
        tbtMs: c.tbtMs,
        avgActive: c.avgActive,
        seats: queuedSeats(c) ?? null,
        allStreamed: (c.clientQueue?.peakStreaming ?? 0) >= c.concurrency,
        rampTimedOut: c.rampTimedOut === true,
        previousLevel: ranBefore(c),
        specAcceptanceLength: c.specAcceptanceLength ?? null,
        chunkGapP50Ms: c.chunkGapMs?.p50 ?? null,
      });
    }
    for (const p of r.prefill) {
      if (p.status !== 'Valid' || p.ttftMs === null || p.ttftMs <= 0) continue;
      const tokens = p.promptTokens ?? p.contextTokens;
      prefill.push({
        source,
        contextTokens: p.contextTokens,
        promptTokens: tokens,
        ttftMs: p.ttftMs,
        tokensPerS: p.tokensPerS ?? (tokens / p.ttftMs) * 1000,
      });
    }
  }
  const first = results.find((r) => !r.result.predicted)?.result ?? results[0]!.result;
  return {
    decode,
    prefill,
    ...(kv !== undefined ? { kvCapacityTokens: kv } : {}),
    ...(maxLen !== undefined ? { maxModelLen: maxLen } : {}),
    levels: [...levels].sort((a, b) => a - b),
    model: first.target.model,
    engine: first.engine.name,
    hardware: first.hardware,
    sources: results.map((r) => r.source),
    metadata: fittedMetadata(results.map((r) => r.result)),
  };
}

/** Keeps the decode cells and prefill points named (`8192x16`, `p8192`); the rest of a result is left out. */
export function selectObservations(
  obs: Observations,
  keep: { decode: ReadonlySet<string>; prefill: ReadonlySet<number> },
): Observations {
  return {
    ...obs,
    decode: obs.decode.filter((d) => keep.decode.has(cellKey(d.contextTokens, d.concurrency))),
    prefill: obs.prefill.filter((p) => keep.prefill.has(p.contextTokens)),
  };
}
