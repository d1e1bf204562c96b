import { contextLabel, fmtMs, fmtTokS } from '../format/index.js';
import type { RunResult, ServiceLevel } from '../results/schema.js';
import { DEFAULT_SERVICE_LEVEL, describeServiceLevel } from '../stats/slo.js';
import { capacities, type Basis, type ContextCapacity } from './capacity.js';
import { rateAnswers, type RowRateAnswer } from './levels.js';
import { rateReason, type RateReason } from './rate-reasons.js';
import { judgedText, limitReason, type LimitReason } from './reasons.js';
import { isMeasured } from '../cell-rules.js';
import { users } from './words.js';

// The answer a reader wants before the matrix (docs/report.md "The answer"): one user's speed, and per context
// how many users the server takes under a service level, why not more, and what to change. Pure: every report
// format, compare, serve, quick and share print it from here.

export interface ContextAnswer extends ContextCapacity {
  reason: LimitReason;
}

export interface Answer {
  slo: ServiceLevel;
  sloFrom: 'given' | 'result' | 'default';
  contexts: ContextAnswer[];
  single?: {
    contextTokens: number;
    concurrency: number;
    ttftMs: number | null;
    coldTtftMs: number | null; // the same context's prefill point: a prompt never seen
    tokensPerS: number | null;
  };
  basis: Basis | 'mixed'; // how the cells were judged
  predicted: boolean;
  // Per row with open-loop levels, the highest arrival rate meeting the level (src/answer/levels.ts) and why not more.
  rates?: RateAnswer[];
}

export interface RateAnswer extends RowRateAnswer {
  reason?: RateReason; // src/answer/rate-reasons.ts
}

/** The service level a result is judged by: the one given, else the result's own, else the default. */
export function serviceLevelFor(
  r: { config: Pick<RunResult['config'], 'slo'> }, // serve's index keeps only this part of the result's config
  given?: ServiceLevel,
): Pick<Answer, 'slo' | 'sloFrom'> {
  if (given) return { slo: given, sloFrom: 'given' };
  if (r.config.slo) return { slo: r.config.slo, sloFrom: 'result' };
  return { slo: DEFAULT_SERVICE_LEVEL, sloFrom: 'default' };
}

export function answerOf(r: RunResult, given?: ServiceLevel): Answer {
  const { slo, sloFrom } = serviceLevelFor(r, given);
  const contexts = capacities(r, slo).map((cc) => {
    const reason = limitReason(r, cc, slo);
    // The limit level was skipped on a KV figure that is only a lower bound: the capacity may lie above it.
    return { ...cc, reason, ...(reason.capacityAtLeast && cc.capacity ? { atLeast: true } : {}) };
  });
  const bases = new Set(
    contexts.flatMap((c) => c.cells.map((j) => j.basis)).filter((b) => b !== 'not run' && b !== 'failed'),
  );
  const measured = r.decode
    .filter((c) => isMeasured(c.status) && c.perRequestTokensPerS !== null)
    .sort((a, b) => a.contextTokens - b.contextTokens || a.concurrency - b.concurrency);
  const one = measured[0];
  const cold = one && r.prefill.find((p) => p.contextTokens === one.contextTokens);
  const rates = rateAnswers(r, slo).map((x): RateAnswer => {
    const reason = rateReason(r, x, slo);
    return reason ? { ...x, reason } : x;
  });
  return {
    slo,
    sloFrom,
    contexts,
    ...(rates.length ? { rates } : {}),
    ...(one
      ? {
          single: {
            contextTokens: one.contextTokens,
            concurrency: one.concurrency,
            ttftMs: one.ttftMs,
            coldTtftMs: cold?.ttftMs ?? null,
            tokensPerS: one.perRequestTokensPerS,
          },
        }
      : {}),
    basis: bases.size === 1 ? [...bases][0]! : bases.size === 0 ? 'not run' : 'mixed',
    predicted: r.predicted !== undefined,
  };
}

const sentence = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "1 user", "2 or 4 users", "1, 2 or 4 users". */
function levelList(levels: number[]): string {
  if (levels.length === 1) return users(levels[0]!);
  return `${levels.slice(0, -1).join(', ')} or ${levels.at(-1)} users`;
}

/** "too close to call at 2 or 4 users": the one wording of the levels between the capacity and the limit. */
export function tooCloseToCall(c: ContextCapacity): string {
  return `too close to call at ${levelList(c.undecided.map((j) => j.cell.concurrency))}`;
}

/** "16 users", "at least 128 users", "not even 1 user", "not even 2 users, the fewest measured", "too close to call
 * at 2 or 4 users". */
export function capacityPhrase(c: ContextCapacity): string {
  if (c.capacity && c.atLeast) return `at least ${users(c.capacity.cell.concurrency)}`;
  if (c.capacity) return users(c.capacity.cell.concurrency);
  if (c.undecided.length) return tooCloseToCall(c);
  const fewest = c.cells[0]?.cell.concurrency ?? 1;
  return fewest === 1 ? 'not even 1 user' : `not even ${users(fewest)}, the fewest measured`;
}

/** "96% of 230 requests met it", for the capacity cell; the median request where there is no per-request data. */
export function capacityEvidence(c: ContextCapacity): string {
  const j = c.capacity ?? c.undecided[0] ?? c.limit;
  if (!j) return '';
  const met = j.share?.basis === 'requests' ? `${judgedText(j)} met it` : `${judgedText(j)} meets it`;
  return j === c.capacity
    ? `${met} at ${users(j.cell.concurrency)}`
    : `${users(j.cell.concurrency)}: ${judgedText(j)}`;
}

/** One user's experience: "One user at 8K: first token 110 ms (cold prompt 431 ms), 98.2 tok/s". */
export function singleUserLine(a: Answer): string | undefined {
  const s = a.single;
  if (!s) return undefined;
  const who = s.concurrency === 1 ? 'One user' : `${users(s.concurrency)} (the fewest measured)`;
  const cold = s.coldTtftMs !== null ? ` (new prompt ${fmtMs(s.coldTtftMs)})` : '';
  return `${who} at ${contextLabel(s.contextTokens)}: first token ${fmtMs(s.ttftMs)}${cold}, ${fmtTokS(s.tokensPerS)} tok/s`;
}

/** "Service level chat (the default; --slo to change): first token within 2 s ..., for 90% of requests". */
export function serviceLevelLine(a: Pick<Answer, 'slo' | 'sloFrom'>): string {
  const from =
    a.sloFrom === 'default'
      ? 'the default; --slo to change'
      : a.sloFrom === 'result'
        ? "the run's --slo"
        : '--slo';
  return `Service level${a.slo.name ? ` ${a.slo.name}` : ''} (${from}): ${describeServiceLevel(a.slo)}`;
}

/** How the cells were judged, when it is not each request: the reader must know the share is out of reach. */
export function basisNote(a: Answer): string | undefined {
  if (a.basis === 'requests' || a.basis === 'not run') return undefined;
  if (a.basis === 'predicted' || a.predicted)
    return 'Predicted by a twin, judged from predicted medians and intervals: the median request, not the share.';
  if (a.basis === 'medians')
    return 'Judged from medians and intervals (this result has no per-request data): the median request, not the share.';
  return 'Some cells are judged from medians (no per-request data): the median request, not the share.';
}

export interface AnswerRow {
  context: string; // "8K"
  capacity: string; // "16 users"
  evidence: string; // "96% of 230 requests met it at 16 users"
  total: string; // total tok/s at the capacity
  why: string; // the limit's reason, in a sentence
  short: string;
  change: string;
}

export function answerRows(a: Answer): AnswerRow[] {
  return a.contexts.map((c) => ({
    context: contextLabel(c.contextTokens),
    capacity: capacityPhrase(c),
    evidence: capacityEvidence(c),
    total: c.capacity ? `${fmtTokS(c.capacity.cell.totalTokensPerS)} tok/s total` : '',
    why:
      (c.undecided.length && c.limit
        ? `${sentence(tooCloseToCall(c))} (${[...new Set(c.undecided.map(judgedText))].join('; ')}). `
        : '') + c.reason.text,
    short: c.reason.short,
    change: c.reason.change,
  }));
}
