import { rowLabel } from '../answer/levels.js';
import { serverLimits } from '../answer/limits.js';
import { layoutWords } from '../engines/index.js';
import type { CellStatus, DecodeCell, PrefillPoint, RunResult } from '../results/schema.js';
import {
  contextLabel,
  DASH,
  fmt1,
  fmtDate,
  fmtDuration,
  fmtGb,
  fmtInt,
  fmtMs,
  fmtS,
  fmtTokenMs,
  kvBoundNote,
  fmtTokS,
} from '../format/index.js';
import { cellKey, isMeasured } from '../cell-rules.js';

// The view every renderer shares: what the seeds show, derived once from a result file.
export type MetaSection = { name: 'Hardware' | 'Engine' | 'Run'; rows: Array<[string, string]> };

export const STATUS_NOTES: Partial<Record<CellStatus, string>> = {
  'Requests queued': 'the server could not run all requests at once, so some waited in a queue.',
  'Over capacity': "not run because this many requests at this context would exceed the server's KV cache.",
  Failed: 'the cell could not be measured (errors or timeouts); the error is kept.',
};
export const TTFT_NOTE =
  "TTFT is measured after the benchmark warms the server's prompt cache, so it mostly excludes prefill.";
export const MEDIANS_NOTE = 'Latencies are medians. Total tok/s is output across all simultaneous requests.';

// A prediction (`predict --twin`) says so wherever its title shows: every report format and compare.
export function reportTitle(r: RunResult): string {
  return r.predicted ? `Predicted · ${measuredTitle(r)}` : measuredTitle(r);
}

function measuredTitle(r: RunResult): string {
  if (r.title) return r.title;
  const gpu = r.hardware.gpuName
    ? ` on ${r.hardware.gpuName}${r.hardware.gpuCount && r.hardware.gpuCount > 1 ? ` ×${r.hardware.gpuCount}` : ''}`
    : r.hardware.source === 'os' && r.hardware.cpu
      ? ` on ${r.hardware.cpu} (CPU)`
      : '';
  return `${r.target.model}${gpu}`;
}

export function sortedUnique(values: number[]): number[] {
  return [...new Set(values)].sort((a, b) => a - b);
}

// The plan's rows and columns plus any measured cell, so an interrupted run shows what is still missing.
export function decodeContexts(r: RunResult): number[] {
  return sortedUnique([...r.config.contexts, ...r.decode.map((c) => c.contextTokens)]);
}
export function decodeConcurrency(r: RunResult): number[] {
  return sortedUnique([...r.config.concurrency, ...r.decode.map((c) => c.concurrency)]);
}
export function prefillPoints(r: RunResult): PrefillPoint[] {
  return [...r.prefill].sort((a, b) => a.contextTokens - b.contextTokens);
}

export function cellMap(r: RunResult): Map<string, DecodeCell> {
  return new Map(r.decode.map((c) => [cellKey(c.contextTokens, c.concurrency), c]));
}

type PeakInput = Pick<DecodeCell, 'status' | 'totalTokensPerS' | 'contextTokens' | 'concurrency'>;

// A run's peak throughput, one definition for the report's card and serve's list (docs/report.md "Sections"):
// the most total tok/s of a Valid cell; a run without one takes its best measured cell, whose status is named.
export function peakCell<C extends PeakInput>(cells: readonly C[]): C | undefined {
  const best = (pool: readonly C[]) =>
    pool.reduce<C | undefined>(
      (b, c) =>
        c.totalTokensPerS !== null && c.totalTokensPerS > 0 && (!b || c.totalTokensPerS > b.totalTokensPerS!)
          ? c
          : b,
      undefined,
    );
  return best(cells.filter((c) => c.status === 'Valid')) ?? best(cells.filter((c) => isMeasured(c.status)));
}

/** "8K × 8", or "8K × 64 · Requests queued: no Valid cell" for a run without a Valid cell. */
export function peakWhere(c: { status: string; contextTokens: number; concurrency: number }): string {
  const at = `${contextLabel(c.contextTokens)} × ${c.concurrency}`;
  return c.status === 'Valid' ? at : `${at} · ${c.status}: no Valid cell`;
}

function range(values: number[], fmt: (v: number) => string): string {
  if (!values.length) return '';
  const first = fmt(values[0]!);
  const last = fmt(values[values.length - 1]!);
  return first === last ? first : `${first}–${last}`;
}

/** "vllm · 0.30.1 · FP8 · 8 contexts (8K–1019K) × 8 concurrency levels (1–128) · 7 load levels (8K) · prefill at 8K, ...". */
export function subtitle(r: RunResult): string {
  const ctx = decodeContexts(r);
  const conc = decodeConcurrency(r);
  const parts = [r.engine.name, r.engine.version, r.engine.quantization].filter((p): p is string => !!p);
  if (ctx.length && conc.length)
    parts.push(
      `${ctx.length} context${ctx.length === 1 ? '' : 's'} (${range(ctx, contextLabel)}) × ${conc.length} concurrency level${conc.length === 1 ? '' : 's'} (${range(conc, String)})`,
    );
  const levels = r.levels ?? [];
  if (levels.length) {
    // A workload by its kind (its label in full heads its levels' section): a label has no place to wrap.
    const rows = [...new Set(levels.map((l) => rowLabel(l.row).split(':')[0]!))];
    parts.push(`${levels.length} load level${levels.length === 1 ? '' : 's'} (${rows.join(', ')})`);
  }
  const pre = prefillPoints(r);
  if (pre.length) parts.push(`prefill at ${pre.map((p) => contextLabel(p.contextTokens)).join(', ')}`);
  return parts.join(' · ');
}

export function vramText(h: RunResult['hardware']): string | undefined {
  const total = h.gpuMemoryGbTotal ?? (h.gpuMemoryGb && h.gpuCount ? h.gpuMemoryGb * h.gpuCount : undefined);
  if (total === undefined) return h.gpuMemoryGb ? fmtGb(h.gpuMemoryGb) : undefined;
  if (h.gpuCount && h.gpuMemoryGb) return `${fmtGb(total)} (${h.gpuCount} × ${fmtGb(h.gpuMemoryGb)})`;
  return fmtGb(total);
}

function rows(pairs: Array<[string, string | number | undefined | null]>): Array<[string, string]> {
  return pairs
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => [k, typeof v === 'number' ? fmtInt(v) : v!]);
}

export function metadata(r: RunResult): MetaSection[] {
  const h = r.hardware;
  const e = r.engine;
  const t = r.target;
  const c = r.config;
  const sampling = Object.entries(c.sampling)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ');
  return [
    {
      name: 'Hardware',
      rows: rows([
        ['Type', h.type],
        ['GPU', h.gpuName],
        ['GPU count', h.gpuCount],
        ['VRAM', vramText(h)],
        ['Driver', h.gpuDriver],
        ['CPU', h.cpu],
        ['CPU cores', h.cpuCores],
        ['Memory', h.systemMemoryGb === undefined ? undefined : `${h.systemMemoryGb} GB`],
        ['OS', h.os],
      ]),
    },
    {
      name: 'Engine',
      rows: rows([
        ['Engine', e.name],
        ['Version', e.version],
        ['Quantization', e.quantization],
        ['Backend', e.backend],
        ['Repository', e.repository],
        ['Build', e.build],
        ['Commit', e.commit],
      ]),
    },
    {
      name: 'Run',
      rows: rows([
        ['Served model', t.model],
        ['Revision', t.revision],
        ['Benchmark tool', `${r.tool.name} v${r.tool.version}`],
        ['Decode test', r.decodeTest],
        ['Prefill mode', r.prefillMode],
        ['Time per measurement', fmtDuration(c.duration)],
        ['Max output', `${fmtInt(c.maxOutput)} tokens`],
        ['Max model length', t.maxModelLen ? `${fmtInt(t.maxModelLen)} tokens` : undefined],
        ['KV capacity', kvCapacityText(r)],
        [
          'Seats',
          t.seats ? `${fmtInt(t.seats)} requests at once (${t.seatsSource ?? 'the server'})` : undefined,
        ],
        ['KV layout', r.status === 'imported' ? undefined : kvLayoutText(r)],
        ['API', r.status === 'imported' ? undefined : t.api],
        ['Sampling sent', r.status === 'imported' ? undefined : sampling || 'none (model defaults)'],
        ['Ignore EOS', r.status === 'imported' ? undefined : c.ignoreEos ? 'yes' : 'no'],
        ['Prefill repeats', c.prefillRepeats > 1 ? c.prefillRepeats : undefined],
        ['Repeats per cell', (c.repeats ?? 1) > 1 ? c.repeats : undefined],
        ['Started', r.startedAt ? fmtDate(r.startedAt) : undefined],
        ['Status', r.status === 'complete' ? undefined : r.status],
        ['Run id', r.runId],
      ]),
    },
  ];
}

// The KV capacity as the probe read it; where the run showed the slots share one pool, that pool (the slot's n_ctx).
function kvCapacityText(r: RunResult): string | undefined {
  const t = r.target;
  if (!t.kvCapacityTokens) return undefined;
  const l = serverLimits(r);
  if (l.layoutProof && l.kvTokens !== undefined && l.kvTokens !== t.kvCapacityTokens)
    return `${fmtInt(l.kvTokens)} tokens, one pool the slots share (shown by the run; the probe read ${fmtInt(t.kvCapacityTokens)})`;
  return `${fmtInt(t.kvCapacityTokens)} tokens${t.kvCapacitySource ? ` (${t.kvCapacitySource})` : ''}${kvBoundNote(t.kvCapacityBound)}`;
}

// The KV layout where the engine has more than one: as the server or its launch command said, or as the run proved.
function kvLayoutText(r: RunResult): string | undefined {
  const l = serverLimits(r);
  const words = layoutWords(r.engine.name, l.layout);
  return words && l.layoutProof ? `${words} (shown by the run)` : words;
}

// One row of the seeds' "All measurements" table, formatted.
export const MEASUREMENT_HEADERS = [
  'Phase',
  'Context',
  'Requests at once',
  'Status',
  'Total tok/s',
  'Per request tok/s',
  'TTFT',
  'Time between tokens',
  'Average active requests',
  'Completed requests',
  'Output tokens',
  'Measured for',
] as const;

export function prefillRow(p: PrefillPoint): string[] {
  return [
    'Prefill',
    contextLabel(p.contextTokens),
    '1',
    p.status,
    fmtTokS(p.tokensPerS),
    DASH,
    fmtMs(p.ttftMs),
    DASH,
    DASH,
    fmtInt(p.completed),
    DASH,
    DASH,
  ];
}

/** " ±1.3%": half the 95% interval relative to the figure (docs/method.md "Intervals"); "" without one. */
export function plusMinus(i: { lo: number; hi: number } | null | undefined, v: number | null): string {
  if (!i || v === null || v <= 0) return '';
  const half = (i.hi - i.lo) / 2 / v;
  return ` ±${half < 0.095 ? (half * 100).toFixed(1) : Math.round(half * 100)}%`;
}

/** "95% interval 1,767.4–1,862.4 tok/s" lines for hovers. */
export function intervalLines(c: DecodeCell): string[] {
  const iv = c.intervals;
  if (!iv) return [];
  const line = (name: string, i: { lo: number; hi: number } | null | undefined, f: (v: number) => string) =>
    i ? [`${name} 95% interval ${f(i.lo)}–${f(i.hi)}`] : [];
  return [
    ...line('Total tok/s', iv.totalTokensPerS, fmtTokS),
    ...line('Per request tok/s', iv.perRequestTokensPerS, fmtTokS),
    ...line('TTFT', iv.ttftMs, fmtMs),
    ...line('Time between tokens', iv.tbtMs, fmtTokenMs),
  ];
}

/** "3 repeats: 1,800 / 1,912 / 1,766 tok/s total" for a cell merged from --repeats windows; undefined for one. */
export function repeatsText(c: DecodeCell): string | undefined {
  const reps = c.repeats ?? [];
  if (reps.length < 2) return undefined;
  const each = reps.map((x) => (x.status === 'Failed' ? 'Failed' : fmtTokS(x.totalTokensPerS))).join(' / ');
  return `${reps.length} repeats: ${each} tok/s total (figures are their mean, intervals span them)`;
}

export function decodeRow(c: DecodeCell): string[] {
  return [
    'Sustained decode',
    contextLabel(c.contextTokens),
    String(c.concurrency),
    c.status,
    fmtTokS(c.totalTokensPerS) + plusMinus(c.intervals?.totalTokensPerS, c.totalTokensPerS),
    fmtTokS(c.perRequestTokensPerS) + plusMinus(c.intervals?.perRequestTokensPerS, c.perRequestTokensPerS),
    fmtMs(c.ttftMs),
    fmtTokenMs(c.tbtMs),
    fmt1(c.avgActive),
    fmtInt(c.completed),
    fmtInt(c.outputTokens),
    fmtS(c.measuredS),
  ];
}

export function measurementRows(r: RunResult): string[][] {
  const ctxOrder = (a: DecodeCell, b: DecodeCell) =>
    a.contextTokens - b.contextTokens || a.concurrency - b.concurrency;
  return [...prefillPoints(r).map(prefillRow), ...[...r.decode].sort(ctxOrder).map(decodeRow)];
}

// At one request at once, per request is above total by construction (docs/method.md "Figures of a cell"): a
// reader who sees 375.3 beside 344.3 is told why, with the cell that shows it most.
export function singleUserNote(r: RunResult): string[] {
  const above = r.decode.filter(
    (c) =>
      c.concurrency === 1 &&
      c.totalTokensPerS !== null &&
      c.perRequestTokensPerS !== null &&
      c.perRequestTokensPerS > c.totalTokensPerS,
  );
  if (!above.length) return [];
  const most = above.reduce((a, b) =>
    b.perRequestTokensPerS! / b.totalTokensPerS! > a.perRequestTokensPerS! / a.totalTokensPerS! ? b : a,
  );
  return [
    `Per request above Total at 1 request at once (${contextLabel(most.contextTokens)} × 1: ` +
      `${fmtTokS(most.perRequestTokensPerS)} vs ${fmtTokS(most.totalTokensPerS)} tok/s) is expected: Total divides ` +
      "the window's tokens by the whole window, including the moments between one request's last token and the " +
      "next one's first; Per request times each request from its first to its last token only.",
  ];
}

/** Legend lines for the statuses that occur, in the seeds' words. */
export function statusNotes(statuses: Iterable<CellStatus>): string[] {
  const present = new Set(statuses);
  return (['Requests queued', 'Over capacity', 'Failed'] as const)
    .filter((s) => present.has(s))
    .map((s) => `${s}: ${STATUS_NOTES[s]}`);
}

export function errorTotal(errors: Partial<Record<string, number>> | undefined): number {
  return Object.values(errors ?? {}).reduce<number>((a, b) => a + (b ?? 0), 0);
}
