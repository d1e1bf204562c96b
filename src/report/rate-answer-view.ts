import type { Answer, RateAnswer } from '../answer/answer.js';
import { judgedText } from '../answer/reasons.js';
import {
  rateEvidence,
  rateOf,
  ratePhrase,
  rateSentence,
  rowLabel,
  type LevelJudgement,
} from '../answer/levels.js';
import { CLIENT_BOUND_FIX, lagText } from './levels-model.js';

// The answer in requests per second, beside the users at once (docs/workloads.md "The answer in requests per
// second"): per row with open-loop levels the highest arrival rate meeting the service level, the evidence, and in
// words each rate that is too close to call or was not judged because the client fell behind. Every report format,
// share and serve take it from here.

export const RATES_HEADING = 'Requests per second (arrivals at a rate), beside the users at once';
const LEVELS_HEADING = 'Workloads and traces (load levels), under the service level';

// A result whose levels are a workload's closed loop or a trace has no rate to answer in: its heading says so.
export const hasRates = (a: Answer): boolean => (a.rates ?? []).some((x) => x.levels.length > 0);
export const ratesHeading = (a: Answer): string => (hasRates(a) ? RATES_HEADING : LEVELS_HEADING);

const pct = (v: number) => `${Math.round(v * 100)}%`;

/** "3 req/s is too close to call: 91% of 180 requests met it, and ..." */
function tooCloseNote(j: LevelJudgement, share: number): string {
  const at = `${rateOf(j.level)} req/s is too close to call`;
  const s = j.share;
  if (s?.basis !== 'requests' || !s.interval)
    return `${at}: the median request lies too near the level to say.`;
  return (
    `${at}: ${judgedText(j)} met it, and the 95% interval of that share (${Math.round(s.interval.lo * 100)}–` +
    `${pct(s.interval.hi)}) holds the ${pct(share)} asked; more requests (a longer --duration) would decide it.`
  );
}

/** "8 req/s is client-bound, not judged: ..." */
function clientBoundNote(j: LevelJudgement): string {
  return `${rateOf(j.level)} req/s is client-bound, not judged: ${lagText(j.level)}, so part of every timing is the client's own; ${CLIENT_BOUND_FIX}.`;
}

export interface RateAnswerRow {
  row: string; // the row's label: "8K", or the workload's
  phrase: string; // "3.08 req/s (3.36 fails; 8 req/s client-bound)"
  sentence: string; // "shared-prefix:...: 3.08 req/s meets the service level (3.36 fails it); 4 users at once"
  users: string; // "4 users", "at least 8 users", or "—" where no closed loop was measured
  evidence: string;
  notes: string[]; // too close to call, client-bound
  why: string; // why not a higher rate, in a sentence ('' where a rate too close to call is the limit)
  change: string; // what to change, naming the engine's setting
}

export function rateAnswerRows(a: Answer): RateAnswerRow[] {
  return (a.rates ?? []).map((x: RateAnswer) => ({
    row: rowLabel(x.row),
    phrase: ratePhrase(x),
    sentence: rateSentence(x),
    users: x.users
      ? `${x.users.atLeast ? 'at least ' : ''}${x.users.users} user${x.users.users === 1 ? '' : 's'}`
      : '—',
    evidence: rateEvidence(x),
    notes: [...x.undecided.map((j) => tooCloseNote(j, a.slo.share)), ...x.clientBound.map(clientBoundNote)],
    // Every rate met: the sentence above says so; the change alone follows.
    why: x.reason && x.reason.kind !== 'unmeasured' ? x.reason.text : '',
    change: x.reason?.change ?? '',
  }));
}

/** The answer's title: it names requests per second where the result has rates to answer in. */
export const answerTitle = (a: Answer, base: string): string =>
  hasRates(a) ? base.replace('users at once', 'users at once and requests per second') : base;
