import {
  ERROR_KINDS,
  type CellIntervals,
  type DecodeCell,
  type PrefillPoint,
  type Quantiles,
  type RunResult,
} from '../results/schema.js';
import { contextLabel } from '../format/index.js';
import { errorTotal, prefillPoints } from './model.js';
import { givenAnalysis, type Analysis } from '../answer/analysis.js';
import { capacityPhrase, type ContextAnswer } from '../answer/answer.js';
import { formatServiceLevel } from '../stats/slo.js';
import { cellKey } from '../cell-rules.js';

// One row per measurement: the seeds' "All measurements" columns (raw numbers, units in the header),
// then every figure beyond the seeds. RFC 4180: CRLF line ends, fields quoted when needed.

const INTERVAL_FIELDS: Array<[keyof CellIntervals, string]> = [
  ['totalTokensPerS', 'Total tok/s'],
  ['perRequestTokensPerS', 'Per request tok/s'],
  ['ttftMs', 'TTFT ms'],
  ['tbtMs', 'Time between tokens ms'],
];

export function csvField(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

// Decimals per column, by the unit its header names: what the md/txt print and a digit or two more, so a figure
// reads as measured, not as float noise (7.825790999999999 ms). The first rule that matches a header wins.
const DECIMALS: Array<[RegExp, number]> = [
  [/ratio|margin|Joules/i, 4], // shares, and small per-token energies
  [/tok\/s per W/i, 3],
  [/tok\/s/i, 2],
  [/ ms\b/, 2],
  [/ s$/, 3],
  [/%| W$/, 1],
];

export function csvDecimals(header: string): number {
  return DECIMALS.find(([re]) => re.test(header))?.[1] ?? 3;
}

/** One CSV line: numbers rounded by their column's header (csvDecimals), every field quoted as RFC 4180 says. */
export function csvLine(headers: readonly string[], values: readonly unknown[]): string {
  return values
    .map((v, i) =>
      csvField(
        typeof v === 'number' && !Number.isInteger(v)
          ? Number(v.toFixed(csvDecimals(headers[i] ?? '')))
          : (v as string | number | boolean | null | undefined),
      ),
    )
    .join(',');
}

const q = (x: Quantiles | undefined) => [x?.p50, x?.p90, x?.p99];

// The answer under the report's service level (docs/report.md "The answer"), on each decode row: the level, the
// cell's verdict and share of requests meeting it, and its context's users at once.
const ANSWER_HEADERS = [
  'Service level',
  'Service level verdict',
  'Service level share met',
  'Users at once (context)',
];

export const CSV_HEADERS = [
  'Phase',
  'Context',
  'Context tokens',
  'Requests at once',
  'Status',
  'Total tok/s',
  'Per request tok/s',
  'TTFT ms',
  'Time between tokens ms',
  'Average active requests',
  'Completed requests',
  'Output tokens',
  'Measured for s',
  'Prompt tokens',
  'TTFT p50 ms',
  'TTFT p90 ms',
  'TTFT p99 ms',
  'Chunk gap p50 ms',
  'Chunk gap p90 ms',
  'Chunk gap p99 ms',
  'Per request tok/s p50',
  'Per request tok/s p90',
  'Per request tok/s p99',
  'Requests sent',
  'Errors',
  ...ERROR_KINDS.map((k) => `Errors ${k}`),
  'Cache hit ratio',
  'Spec acceptance length',
  'Max running',
  'Max waiting',
  'Average power W',
  'Joules per token',
  'Tok/s per W',
  'Ramp timed out',
  'Aborted at close',
  'Average pending requests',
  'Max first-token wait ms',
  'Prefill repeats',
  'Outlier repeats',
  'Error',
  ...INTERVAL_FIELDS.flatMap(([, name]) => [`${name} 95% lo`, `${name} 95% hi`]),
  'Max chunk gap ms',
  'Stalls',
  'Stalled ms',
  ...cellExtraHeaders(),
  ...ANSWER_HEADERS,
];

// Beyond the figures: how far to trust them (client self-check, a stream held on the way, token split), the
// capacity check, the repeats, requests sent again after the server closed a kept-alive connection.
function cellExtraHeaders(): string[] {
  return [
    'Client bound',
    'Client loop delay p99 ms',
    'Client CPU % per thread',
    'Client busiest event loop %',
    'Stream held on the way',
    'Token events per read',
    'Read gap ms',
    'Token split',
    'Window token error bound',
    'Capacity check',
    'Repeats',
    'Requests sent again',
  ];
}

function cellExtras(c: DecodeCell): unknown[] {
  const k = c.capacityCheck;
  return [
    c.client?.clientBound,
    c.client?.loopDelayP99Ms,
    c.client?.cpuPctPerThread,
    c.client?.busiestLoopPct,
    c.streamBatching?.batched,
    c.streamBatching?.eventsPerRead,
    c.streamBatching?.heldMs,
    c.chunkAttribution,
    c.windowTokenErrorBound,
    k ? `${k.needTokens} > ${k.kvCapacityTokens} (${k.bound}): ${k.held ? 'rule held' : 'ran whole'}` : null,
    c.repeats?.length,
    // Absent in the result means none; a result that counted no requests (imported, predicted) says nothing.
    c.staleReconnects ?? (c.requestsSent === undefined ? null : 0),
  ];
}

function intervalFields(c: DecodeCell): Array<number | null> {
  return INTERVAL_FIELDS.flatMap(([k]) => {
    const i = c.intervals?.[k];
    return [i?.lo ?? null, i?.hi ?? null];
  });
}

export function renderCsv(r: RunResult, analysis?: Analysis): string {
  const a = givenAnalysis(r, { ...(analysis ? { analysis } : {}) });
  const level = formatServiceLevel(a.slo);
  const judged = new Map(
    a.contexts.flatMap((c) =>
      c.cells.map((j) => [cellKey(j.cell.contextTokens, j.cell.concurrency), { j, c }]),
    ),
  );
  const answerFields = (cell: DecodeCell): unknown[] => {
    const x = judged.get(cellKey(cell.contextTokens, cell.concurrency));
    return x ? answerCells(level, x.j.verdict, x.j.share?.share, x.c) : ANSWER_HEADERS.map(() => null);
  };
  const tag = r.predicted ? ' (predicted)' : ''; // a prediction stays labelled when the rows leave the report
  const cells = [...r.decode].sort(
    (a, b) => a.contextTokens - b.contextTokens || a.concurrency - b.concurrency,
  );
  const rows: unknown[][] = [
    CSV_HEADERS,
    ...prefillPoints(r).map((p) => prefillRow(p, tag)),
    ...cells.map((c) => [...decodeRow(c, tag), ...answerFields(c)]),
  ];
  return rows.map((row) => csvLine(CSV_HEADERS, row)).join('\r\n') + '\r\n';
}

function prefillRow(p: PrefillPoint, tag: string): unknown[] {
  const errs = ERROR_KINDS.map((k) => p.errors?.[k]);
  return [
    `Prefill${tag}`,
    contextLabel(p.contextTokens),
    p.contextTokens,
    1,
    p.status,
    p.tokensPerS,
    null,
    p.ttftMs,
    null,
    null,
    p.completed,
    null,
    null,
    p.promptTokens,
    ...Array(9).fill(null),
    null,
    p.errors ? errorTotal(p.errors) : null,
    ...errs,
    ...Array(11).fill(null),
    p.repeats.length || null,
    p.repeats.length ? p.repeats.filter((x) => x.outlier).length : null,
    p.error,
    ...INTERVAL_FIELDS.flatMap(() => [null, null]),
    null,
    null,
    null,
    ...cellExtraHeaders().map(() => null),
    ...ANSWER_HEADERS.map(() => null),
  ];
}

const answerCells = (level: string, verdict: string, share: number | null | undefined, c: ContextAnswer) => [
  level,
  verdict,
  share ?? null,
  capacityPhrase(c),
];

function decodeRow(c: DecodeCell, tag: string): unknown[] {
  return [
    `Sustained decode${tag}`,
    contextLabel(c.contextTokens),
    c.contextTokens,
    c.concurrency,
    c.status,
    c.totalTokensPerS,
    c.perRequestTokensPerS,
    c.ttftMs,
    c.tbtMs,
    c.avgActive,
    c.completed,
    c.outputTokens,
    c.measuredS,
    c.promptTokens,
    ...q(c.ttft),
    ...q(c.chunkGapMs),
    ...q(c.perRequestTokensPerSQ),
    c.requestsSent,
    c.errors ? errorTotal(c.errors) : null,
    ...ERROR_KINDS.map((k) => c.errors?.[k]),
    c.cacheHitRatio,
    c.specAcceptanceLength,
    c.maxRunning,
    c.maxWaiting,
    c.avgPowerW,
    c.joulesPerToken,
    c.tokensPerSPerW,
    c.rampTimedOut,
    c.abortedAtClose,
    c.avgPending,
    c.maxFirstTokenWaitMs,
    null,
    null,
    c.error,
    ...intervalFields(c),
    c.maxChunkGapMs,
    c.stalls,
    c.stalledMs,
    ...cellExtras(c),
  ];
}
