import { z } from 'zod';
import { capacityPhrase, serviceLevelFor } from '../answer/answer.js';
import { capacities } from '../answer/capacity.js';
import { ratePhrase, rateAnswers } from '../answer/levels.js';
import {
  DecodeCell,
  LoadLevel,
  PrefillPoint,
  RunConfig,
  RunResult,
  type ServiceLevel,
} from '../results/schema.js';
import { nameServiceLevel } from '../stats/slo.js';
import { prefillMeasured } from '../report/compare-verdicts.js';
import { peakCell } from '../report/model.js';
import { cellKey } from '../cell-rules.js';

// What the results browser keeps in memory per run: the metadata it lists and filters by, and the headline
// figures of every cell and prefill point (for the history view). The result file stays the source of truth:
// a report or comparison always reads it again.

export type Range = [lo: number, hi: number];

export interface CellFigures {
  status: string;
  totalTokensPerS: number | null;
  perRequestTokensPerS: number | null;
  ttftMs: number | null;
  tbtMs: number | null;
  // 95% intervals where the result has them (docs/method.md "Intervals"); absent otherwise.
  iv?: Partial<Record<'totalTokensPerS' | 'perRequestTokensPerS' | 'ttftMs' | 'tbtMs', Range>>;
  held?: true; // the stream was held back on the way: arrival-timed figures are not the server's
}

export interface PrefillFigures {
  status: string;
  tokensPerS: number | null;
  ttftMs: number | null;
  iv?: { tokensPerS?: Range }; // from the spread of the repeats, as compare does
}

export interface RunEntry {
  id: string; // the run's key in URLs: its folder relative to the served root
  file: string; // absolute path of result.json
  mtimeMs: number;
  size: number;
  runId: string;
  title: string;
  model: string;
  engine: string;
  engineVersion: string;
  gpu: string;
  startedAt: string;
  status: string;
  toolVersion: string;
  counts: { valid: number; queued: number; over: number; failed: number };
  // The answer (docs/report.md "The answer"): users at once per decode context, ascending, under the service
  // level named (serve --slo, else the run's own, else the default).
  // Per row with rates, the highest arrival rate meeting it ("3.08 req/s"; docs/workloads.md "The answer in
  // requests per second"); absent for a run without load levels.
  answer: {
    slo: string;
    contexts: Array<{ contextTokens: number; users: string }>;
    rates?: Array<{ row: string; rate: string }>;
  };
  // The report card's peak throughput (src/report/model.ts peakCell): a Valid cell's, else the status named.
  peak: { tokensPerS: number; contextTokens: number; concurrency: number; status: string } | null;
  decode: Record<string, CellFigures>; // key "8192x4"
  prefill: Record<string, PrefillFigures>; // key "8192"
}

// The part of a result the index reads, validated with the result's own field schemas. Per-cell server
// samples, percentiles and errors (most of a file's bytes) are skipped: a report validates the whole file. The
// cells keep every field the answer judges by (each request's TTFT and decode rate).
export const IndexedResult = RunResult.pick({
  schema: true,
  version: true,
  runId: true,
  title: true,
  tool: true,
  status: true,
  startedAt: true,
  target: true,
  engine: true,
  hardware: true,
  predicted: true,
}).extend({
  config: RunConfig.pick({ slo: true }),
  prefill: z.array(PrefillPoint),
  decode: z.array(
    DecodeCell.pick({
      contextTokens: true,
      concurrency: true,
      status: true,
      totalTokensPerS: true,
      perRequestTokensPerS: true,
      ttftMs: true,
      tbtMs: true,
      avgActive: true,
      completed: true,
      outputTokens: true,
      measuredS: true,
      intervals: true,
      streamBatching: true,
      windowRequests: true,
      prediction: true,
    }),
  ),
  // Load levels whole but for their server samples (most of a level's bytes): the answer judges every level.
  levels: z.array(LoadLevel.omit({ serverSamples: true })).optional(),
});
export type IndexedResult = z.infer<typeof IndexedResult>;

const range = (i: { lo: number; hi: number } | null | undefined): Range | undefined =>
  i ? [i.lo, i.hi] : undefined;

export function gpuLabel(h: IndexedResult['hardware']): string {
  if (!h.gpuName) return '';
  return h.gpuCount && h.gpuCount > 1 ? `${h.gpuCount} × ${h.gpuName}` : h.gpuName;
}

export function runEntry(
  r: IndexedResult,
  at: { id: string; file: string; mtimeMs: number; size: number },
  slo?: ServiceLevel, // serve --slo
): RunEntry {
  const decode: Record<string, CellFigures> = {};
  const counts = { valid: 0, queued: 0, over: 0, failed: 0 };
  for (const c of r.decode) {
    if (c.status === 'Valid') counts.valid++;
    else if (c.status === 'Requests queued') counts.queued++;
    else if (c.status === 'Over capacity') counts.over++;
    else counts.failed++;
    const iv: NonNullable<CellFigures['iv']> = {};
    for (const k of ['totalTokensPerS', 'perRequestTokensPerS', 'ttftMs', 'tbtMs'] as const) {
      const x = range(c.intervals?.[k]);
      if (x) iv[k] = x;
    }
    decode[cellKey(c.contextTokens, c.concurrency)] = {
      status: c.status,
      totalTokensPerS: c.totalTokensPerS,
      perRequestTokensPerS: c.perRequestTokensPerS,
      ttftMs: c.ttftMs,
      tbtMs: c.tbtMs,
      ...(Object.keys(iv).length ? { iv } : {}),
      ...(c.streamBatching?.batched ? { held: true as const } : {}),
    };
  }
  const top = peakCell(r.decode);
  const level = serviceLevelFor(r, slo).slo;
  // The rate alone ("3.08 req/s"), the next one up left to the report.
  const rates = rateAnswers(r, level).map((a) => ({
    row: a.row,
    rate: ratePhrase(a).replace(/ \(.*\)$/, ''),
  }));
  const prefill: Record<string, PrefillFigures> = {};
  for (const p of r.prefill) {
    const spread = range(prefillMeasured(p).interval);
    prefill[String(p.contextTokens)] = {
      status: p.status,
      tokensPerS: p.tokensPerS,
      ttftMs: p.ttftMs,
      ...(spread ? { iv: { tokensPerS: spread } } : {}),
    };
  }
  return {
    ...at,
    runId: r.runId,
    title: r.title ?? '',
    model: r.target.model,
    engine: r.engine.name,
    engineVersion: r.engine.version ?? '',
    gpu: gpuLabel(r.hardware),
    startedAt: r.startedAt,
    status: r.status,
    toolVersion: r.tool.version,
    counts,
    answer: {
      slo: nameServiceLevel(level),
      contexts: capacities(r, level).map((c) => ({
        contextTokens: c.contextTokens,
        users: capacityPhrase(c),
      })),
      ...(rates.length ? { rates } : {}),
    },
    peak: top
      ? {
          tokensPerS: top.totalTokensPerS!,
          contextTokens: top.contextTokens,
          concurrency: top.concurrency,
          status: top.status,
        }
      : null,
    decode,
    prefill,
  };
}
