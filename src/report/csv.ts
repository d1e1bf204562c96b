import {
  ERROR_KINDS,
  type CellIntervals,
  type DecodeCell,
  type PrefillPoint,
  type Quantiles,
  type RunResult,
  type ServiceLevel,
} from '../results/schema.js';
import { contextLabel } from '../format/index.js';
import { givenAnalysis, type Analysis } from '../answer/analysis.js';
import { capacityPhrase } from '../answer/answer.js';
import type { CellJudgement } from '../answer/capacity.js';
import { rowLabel } from '../answer/levels.js';
import { formatServiceLevel, type ShareJudgement } from '../stats/slo.js';
import { cellKey } from '../cell-rules.js';
import { errorTotal, prefillPoints } from './model.js';
import { levelRowsView, type LevelView } from './levels-model.js';

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

// The answer under the report's service level (docs/report.md "The answer"), on every decode cell's and load level's
// row: the level, the verdict, the share of its requests that met it with its 95% interval (judged request by
// request; empty where only the median request could be), and for a cell its context's users at once.
const ANSWER_HEADERS = [
  'Service level',
  'Verdict',
  'Met service level ratio',
  'Met service level 95% lo ratio',
  'Met service level 95% hi ratio',
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
  const slo = a.slo;
  const tag = r.predicted ? ' (predicted)' : ''; // a prediction stays labelled when the rows leave the report
  const cells = [...r.decode].sort(
    (x, y) => x.contextTokens - y.contextTokens || x.concurrency - y.concurrency,
  );
  const judged = new Map(
    a.contexts.flatMap((c) =>
      c.cells.map((j) => [
        cellKey(j.cell.contextTokens, j.cell.concurrency),
        { j, users: capacityPhrase(c) },
      ]),
    ),
  );
  const answerOfCell = (c: DecodeCell): unknown[] => {
    const x = judged.get(cellKey(c.contextTokens, c.concurrency));
    return x ? answerFields(slo, x.j, x.users) : ANSWER_HEADERS.map(() => null);
  };
  // Load levels add their own columns after the cells' (a result without levels keeps the cells' header).
  const levels = levelRowsView(r, slo).flatMap((row) => row.levels);
  const headers = levels.length ? [...CSV_HEADERS, ...LEVEL_CSV_HEADERS] : CSV_HEADERS;
  const pad = levels.length ? LEVEL_CSV_HEADERS.map(() => null) : [];
  const rows: unknown[][] = [
    headers,
    ...prefillPoints(r).map((p) => [...prefillRow(p, tag), ...pad]),
    ...cells.map((c) => [...decodeRow(c, tag), ...answerOfCell(c), ...pad]),
    ...levels.map((v) => levelRow(v, slo, tag)),
  ];
  return rows.map((row) => csvLine(headers, row)).join('\r\n') + '\r\n';
}

// A load level's own figures (docs/workloads.md "Figures of a load level"), beyond the columns it shares with a
// cell; the goodput, share and verdict under the report's service level, judged from the level's requests.
export const LEVEL_CSV_HEADERS = [
  'Row',
  'Load',
  'Load model',
  'Rate asked req/s',
  'Arrival',
  'Offered req/s',
  'Achieved req/s',
  'Goodput req/s',
  'Arrived',
  'Completed',
  'Failed',
  'Unfinished',
  'TTFT from send p50 ms',
  'ITL p50 ms',
  'ITL p90 ms',
  'ITL p99 ms',
  'E2E p50 ms',
  'E2E p90 ms',
  'E2E p99 ms',
  'Prefix cache expected tokens',
  'Prefix cache served tokens',
  'Prefix cache source',
  'Client lag p50 ms',
  'Client lag p99 ms',
  'Client lag limit ms',
  'Evidence',
];

function levelRow(v: LevelView, slo: ServiceLevel, tag: string): unknown[] {
  const l = v.level;
  const load = l.load;
  const share = requestShare(v.judgement.share);
  const byHeader: Partial<Record<(typeof CSV_HEADERS)[number], unknown>> = {
    Phase: `Load level${tag}`,
    Context: rowLabel(l.row),
    'Context tokens': /^\d+$/.test(l.row) ? Number(l.row) : null,
    'Requests at once': load.model === 'closed' ? load.concurrency : null,
    Status: l.status,
    'Total tok/s': l.totalTokensPerS,
    'Per request tok/s': l.perRequestTokensPerS.p50,
    'TTFT ms': l.ttftMs.p50,
    'Time between tokens ms': l.itlMs.p50,
    'Completed requests': l.requests.completed,
    'Output tokens': l.outputTokens,
    'Measured for s': (l.windowCloseMs - l.windowOpenMs) / 1000,
    'Prompt tokens': l.cache?.promptTokens ?? null,
    'TTFT p50 ms': l.ttftMs.p50,
    'TTFT p90 ms': l.ttftMs.p90,
    'TTFT p99 ms': l.ttftMs.p99,
    'Per request tok/s p50': l.perRequestTokensPerS.p50,
    'Per request tok/s p90': l.perRequestTokensPerS.p90,
    'Per request tok/s p99': l.perRequestTokensPerS.p99,
    'Requests sent': l.requests.arrived,
    Errors: l.errors ? errorTotal(l.errors) : null,
    ...Object.fromEntries(ERROR_KINDS.map((k) => [`Errors ${k}`, l.errors?.[k]])),
    'Max waiting': l.queue?.maxWaiting ?? null,
    Error: l.error,
    'Total tok/s 95% lo': l.totalTokensPerSInterval?.lo,
    'Total tok/s 95% hi': l.totalTokensPerSInterval?.hi,
    'TTFT ms 95% lo': l.ttftMs.intervals.p50?.lo,
    'TTFT ms 95% hi': l.ttftMs.intervals.p50?.hi,
    'Per request tok/s 95% lo': l.perRequestTokensPerS.intervals.p50?.lo,
    'Per request tok/s 95% hi': l.perRequestTokensPerS.intervals.p50?.hi,
    'Client bound': l.status === 'Client-bound',
    'Service level': formatServiceLevel(slo),
    Verdict: v.verdict,
    'Met service level ratio': share?.share ?? null,
    'Met service level 95% lo ratio': share?.interval?.lo ?? null,
    'Met service level 95% hi ratio': share?.interval?.hi ?? null,
  };
  return [
    ...CSV_HEADERS.map((h) => byHeader[h] ?? null),
    l.row,
    v.load,
    load.model,
    load.model === 'open' ? load.rate : null,
    load.model === 'open' ? load.arrival : null,
    l.offeredRate,
    l.achievedRate,
    v.goodput,
    l.requests.arrived,
    l.requests.completed,
    l.requests.failed,
    l.requests.unfinished,
    l.ttftFromSendMs.p50,
    l.itlMs.p50,
    l.itlMs.p90,
    l.itlMs.p99,
    l.e2eMs.p50,
    l.e2eMs.p90,
    l.e2eMs.p99,
    l.cache?.expectedTokens ?? null,
    l.cache?.servedTokens ?? null,
    l.cache?.source ?? null,
    l.lag.p50Ms,
    l.lag.p99Ms,
    l.lag.limitMs,
    l.evidence,
  ];
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

// The share a verdict rests on, where each request was judged (a median request's 1 or 0 is not a share).
const requestShare = (s: ShareJudgement | undefined) => (s?.basis === 'requests' ? s : undefined);

function answerFields(slo: ServiceLevel, j: CellJudgement, users: string): unknown[] {
  const share = requestShare(j.share);
  return [
    formatServiceLevel(slo),
    j.verdict,
    share?.share ?? null,
    share?.interval?.lo ?? null,
    share?.interval?.hi ?? null,
    users,
  ];
}
