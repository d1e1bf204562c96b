import {
  judgeLevel,
  levelGoodput,
  rateAnswers,
  rowLabel,
  type LevelJudgement,
  type RowRateAnswer,
} from '../answer/levels.js';
import { DASH, fmtInt, fmtMs, fmtS, fmtTokenMs, fmtTokS, fmtTokSChart } from '../format/index.js';
import type { LevelLoad, LoadLevel, RateSearch, RunResult, ServiceLevel } from '../results/schema.js';
import { describeServiceLevel, formatServiceLevel } from '../stats/slo.js';

// The load levels as every report format shows them (docs/workloads.md "Reports"): per row its levels, lightest
// first, each judged under the report's service level from its stored requests, with the figures formatted once
// for the tables and the rate search's steps in the order they were measured. Pure.

export interface LevelView {
  level: LoadLevel;
  load: string; // "2.83 req/s", "4 users", "trace ×2"
  judgement: LevelJudgement;
  goodput: number | null; // req/s meeting the report's service level
  verdict: string; // meets, fails, too close to call, not judged
}

export interface LevelRowView {
  row: string;
  label: string; // "8K", or the workload's label
  levels: LevelView[];
  answer?: RowRateAnswer; // the row's answer in requests per second, where it has open levels
  search?: RateSearch;
}

const modelOrder: Record<LevelLoad['model'], number> = { closed: 0, open: 1, trace: 2 };
const loadSize = (l: LevelLoad): number =>
  l.model === 'closed' ? l.concurrency : l.model === 'open' ? l.rate : l.timeScale;

/** "2.83 req/s", "4 users", "trace ×2"; an arrival other than Poisson and an in-flight cap are named. */
export function loadText(l: LevelLoad): string {
  if (l.model === 'closed') return `${l.concurrency} user${l.concurrency === 1 ? '' : 's'}`;
  if (l.model === 'trace') return `trace ×${l.timeScale}`;
  const how =
    l.arrival === 'gamma'
      ? ` gamma${l.burstiness !== undefined ? ` B=${l.burstiness}` : ''}`
      : l.arrival === 'constant'
        ? ' constant'
        : '';
  return `${l.rate} req/s${how}${l.maxInFlight ? ` ≤${l.maxInFlight}` : ''}`;
}

/** A row's levels, lightest first: its closed loop by users, then its rates, then a trace. */
export const byLoad = (a: LoadLevel, b: LoadLevel): number =>
  modelOrder[a.load.model] - modelOrder[b.load.model] || loadSize(a.load) - loadSize(b.load);

/** "the client sent requests up to 60.6 ms behind their schedule (p99 48.5 ms, past 12.5 ms)" */
export function lagText(l: LoadLevel): string {
  const lag = l.lag;
  return lag.p99Ms !== null
    ? `the client sent requests up to ${fmtTokenMs(lag.maxMs ?? lag.p99Ms)} behind their schedule (p99 ${fmtTokenMs(lag.p99Ms)}, past ${fmtTokenMs(lag.limitMs)})`
    : 'the client fell behind its own schedule';
}

export const CLIENT_BOUND_FIX = 'rerun with --workers N or on a quieter machine';

export function levelRowsView(r: RunResult, slo: ServiceLevel): LevelRowView[] {
  const levels = r.levels ?? [];
  const answers = new Map(rateAnswers(r, slo).map((a) => [a.row, a]));
  return [...new Set(levels.map((l) => l.row))].map((row) => {
    const views = levels
      .filter((l) => l.row === row)
      .sort(byLoad)
      .map((level): LevelView => {
        const judgement = judgeLevel(level, slo);
        return {
          level,
          load: loadText(level.load),
          judgement,
          goodput: levelGoodput(judgement),
          verdict: judgement.verdict,
        };
      });
    const answer = answers.get(row);
    const search = r.rateSearch?.find((s) => s.row === row);
    return {
      row,
      label: rowLabel(row),
      levels: views,
      ...(answer ? { answer } : {}),
      ...(search ? { search } : {}),
    };
  });
}

// Figures under a header that names the unit: "1,400" (ms), "30.5" (ms a token), "22.5" (s).
export const msFigure = (v: number | null): string =>
  v === null ? DASH : Math.round(v).toLocaleString('en-US');
export const tokenMsFigure = (v: number | null): string =>
  v === null ? DASH : fmtTokenMs(v).replace(' ms', '');
export const secondsFigure = (v: number | null): string => (v === null ? DASH : (v / 1000).toFixed(1));

/** Requests per second in tables: "3.08". */
export const fmtRate = (v: number | null | undefined): string =>
  v === null || v === undefined || !Number.isFinite(v) ? DASH : v.toFixed(2);

const pct = (v: number): string => `${Math.round(v * 100)}%`;

/** "98% (94–100%)": the share meeting the service level and its 95% interval; the median request otherwise. */
export function shareText(v: LevelView): string {
  const s = v.judgement.share;
  if (!s) return DASH;
  if (s.basis === 'medians') return 'median';
  if (s.share === null) return DASH;
  return `${pct(s.share)}${s.interval ? ` (${Math.round(s.interval.lo * 100)}–${pct(s.interval.hi)})` : ''}`;
}

/** The served share of the cacheable tokens: "151.6K of 405.5K (37%)", "not reported". */
export function cacheText(l: LoadLevel): string {
  const c = l.cache;
  if (!c) return DASH;
  if (c.servedTokens === null) return `${fmtTokSChart(c.expectedTokens)} expected, not reported`;
  if (c.expectedTokens === 0 && c.servedTokens === 0) return DASH; // nothing cacheable, nothing served
  const share = c.expectedTokens > 0 ? ` (${pct(c.servedTokens / c.expectedTokens)})` : '';
  return `${fmtTokSChart(c.servedTokens)} of ${fmtTokSChart(c.expectedTokens)}${share}`;
}

/** The figures of one level, formatted, by the column they go in (md, HTML; the terminal picks its own). */
export function levelFigureTexts(v: LevelView): Record<LevelColumn, string> {
  const l = v.level;
  return {
    load: v.load,
    offered: fmtRate(l.offeredRate),
    achieved: fmtRate(l.achievedRate),
    goodput: fmtRate(v.goodput),
    share: shareText(v),
    verdict: v.verdict,
    ttft:
      [l.ttftMs.p50, l.ttftMs.p90, l.ttftMs.p99].map((x) => fmtMs(x).replace(' ms', '')).join(' / ') + ' ms',
    itl: `${fmtTokenMs(l.itlMs.p50).replace(' ms', '')} / ${fmtTokenMs(l.itlMs.p99)}`,
    e2e: `${fmtS(sec(l.e2eMs.p50)).replace(' s', '')} / ${fmtS(sec(l.e2eMs.p99))}`,
    tokS: fmtTokS(l.totalTokensPerS),
    cache: cacheText(l),
    lag: fmtTokenMs(l.lag.p99Ms),
    status: l.status,
  };
}
const sec = (ms: number | null): number | null => (ms === null ? null : ms / 1000);

export const LEVEL_COLUMNS = [
  'load',
  'offered',
  'achieved',
  'goodput',
  'share',
  'verdict',
  'ttft',
  'itl',
  'e2e',
  'tokS',
  'cache',
  'lag',
  'status',
] as const;
export type LevelColumn = (typeof LEVEL_COLUMNS)[number];

export const LEVEL_HEADERS: Record<LevelColumn, string> = {
  load: 'Load',
  offered: 'Offered req/s',
  achieved: 'Achieved req/s',
  goodput: 'Goodput req/s',
  share: 'Met it (95% interval)',
  verdict: 'Verdict',
  ttft: 'TTFT p50 / p90 / p99',
  itl: 'ITL p50 / p99',
  e2e: 'E2E p50 / p99',
  tokS: 'Output tok/s',
  cache: 'Prefix cache served of expected',
  lag: 'Client lag p99',
  status: 'Status',
};

/** Why a level is not Valid, in a sentence: its status and the evidence for it. */
export function levelNote(v: LevelView): string | undefined {
  const l = v.level;
  if (l.status === 'Valid') return undefined;
  if (l.status === 'Client-bound')
    return `${v.load}: Client-bound, not judged: ${lagText(l)}, so part of every timing is the client's own; ${CLIENT_BOUND_FIX}.`;
  // The runner's error for too many failures repeats the evidence's counts; its others say what to do.
  const error = l.error && l.evidence && !/^too many failed/.test(l.error) ? ` (${l.error})` : '';
  return `${v.load}: ${l.status}: ${l.evidence ?? l.error ?? 'no evidence kept'}${error}.`;
}

/** "1 meets, 2 meets, 4 fails, 2.83 meets ...": the search's steps in the order they were measured, and why it stopped. */
export function searchText(s: RateSearch, slo: ServiceLevel): string {
  const steps = s.steps.map((x) => `${x.rate} ${x.verdict}`).join(', ');
  const from = s.startFrom === 'closed loop' ? "from the closed loop's users at once" : s.startFrom;
  const other =
    formatServiceLevel(s.slo) !== formatServiceLevel(slo)
      ? ` Its verdicts are under the level it searched by (${describeServiceLevel(s.slo)}).`
      : '';
  const end = s.done
    ? `done: ${s.reason ?? 'the search ended'}`
    : 'not finished (a resumed run goes on from here)';
  return `Rate search (--find-rate), from ${s.start} req/s (${from}), ${s.steps.length} window${s.steps.length === 1 ? '' : 's'} in req/s: ${steps}; ${end}.${other}`;
}

/** A count with its words: "4 of 240 requests". */
export const ofRequests = (n: number, of: number): string =>
  `${fmtInt(n)} of ${fmtInt(of)} request${of === 1 ? '' : 's'}`;
