import { contextLabel } from '../format/index.js';
import type { LoadLevel, RateVerdict, RunResult, ServiceLevel } from '../results/schema.js';
import { judgeMedians, judgeRequests, type ShareJudgement, type SloVerdict } from '../stats/slo.js';
import { capacities, ladder, type Ladder } from './capacity.js';
import { judgedText } from './reasons.js';

// The answer in requests per second (docs/workloads.md "The answer in requests per second"): each load level
// judged under any service level from what it stored, and per row the highest arrival rate that meets the level,
// beside the users at once of the row's closed loop. Pure, as answerOf.

export type LevelBasis = 'requests' | 'medians' | 'failed' | 'client-bound';

export interface LevelJudgement {
  level: LoadLevel;
  verdict: SloVerdict | 'not judged'; // not judged: Client-bound (its timings are partly the client's)
  basis: LevelBasis;
  share?: ShareJudgement;
}

/** A level under a service level, from its stored per-window-arrival data (as judgeCell for a cell). */
export function judgeLevel(level: LoadLevel, slo: ServiceLevel): LevelJudgement {
  if (level.status === 'Client-bound') return { level, verdict: 'not judged', basis: 'client-bound' };
  if (level.status === 'Failed') return { level, verdict: 'fails', basis: 'failed' };
  if (level.windowRequests) {
    // A queued level holds two kinds of request (those that waited and those that did not): the count decides.
    const share = judgeRequests(level.windowRequests, slo, { oneMode: level.status === 'Valid' });
    return { level, verdict: share.verdict, basis: 'requests', share };
  }
  const share = judgeMedians(
    {
      ttftMs: level.ttftMs.p50,
      ttftInterval: level.ttftMs.intervals.p50,
      tokensPerS: level.perRequestTokensPerS.p50,
      tokensPerSInterval: level.perRequestTokensPerS.intervals.p50,
    },
    slo,
  );
  return { level, verdict: share.verdict, basis: 'medians', share };
}

/** Goodput under the judgement's service level: the window arrivals that met it per second of the window (the
 * stored `goodput` is under the run's own level); null where the level was not judged request by request. */
export function levelGoodput(j: LevelJudgement): number | null {
  const lengthS = (j.level.windowCloseMs - j.level.windowOpenMs) / 1000;
  return j.share?.basis === 'requests' && j.share.judged > 0 && lengthS > 0 ? j.share.met / lengthS : null;
}

/** A level's verdict as the rate search takes it (src/answer/rate-search.ts). */
export function rateVerdict(level: LoadLevel, slo: ServiceLevel): RateVerdict {
  const j = judgeLevel(level, slo);
  return j.verdict === 'not judged' ? 'client-bound' : j.verdict;
}

export const rateOf = (l: LoadLevel): number => (l.load.model === 'open' ? l.load.rate : NaN);

export interface UsersAtOnce {
  users: number;
  atLeast: boolean;
}

export interface RowRateAnswer extends Ladder<LevelJudgement> {
  row: string;
  levels: LevelJudgement[]; // the row's open levels by rate, Client-bound ones included
  clientBound: LevelJudgement[]; // not judged, so outside the ladder
  users?: UsersAtOnce; // the row's closed loop: its cells (a context) or its closed levels
  closedLevels?: number; // the row's closed levels measured (a workload's), where it has any
  trace?: LevelJudgement; // the row's trace replayed on its own schedule
}

// The users at once of a row's closed loop: a context's decode cells, else the row's closed levels.
function usersOf(r: LevelsOf, row: string, slo: ServiceLevel): UsersAtOnce | undefined {
  if (/^\d+$/.test(row)) {
    const c = capacities(r, slo).find((x) => x.contextTokens === Number(row));
    if (c?.capacity) return { users: c.capacity.cell.concurrency, atLeast: c.atLeast };
  }
  const closed = (r.levels ?? [])
    .filter((l) => l.row === row && l.load.model === 'closed')
    .map((l) => judgeLevel(l, slo))
    .filter((j) => j.verdict !== 'not judged')
    .sort((a, b) => concurrencyOf(a.level) - concurrencyOf(b.level));
  const cap = ladder(closed as Array<LevelJudgement & { verdict: SloVerdict }>);
  return cap.capacity ? { users: concurrencyOf(cap.capacity.level), atLeast: cap.atLeast } : undefined;
}
const concurrencyOf = (l: LoadLevel): number => (l.load.model === 'closed' ? l.load.concurrency : NaN);

// The parts of a result the answer in requests per second reads (serve's index keeps no more).
export type LevelsOf = Pick<RunResult, 'levels' | 'decode' | 'predicted'>;

/** Per row with load levels, the highest rate meeting the level (where it has open levels), the users at once of
 * its closed loop and its trace's verdict, in the order the rows first appear. */
export function rateAnswers(r: LevelsOf, slo: ServiceLevel): RowRateAnswer[] {
  const rows = [...new Set((r.levels ?? []).map((l) => l.row))];
  return rows.map((row) => {
    const levels = (r.levels ?? [])
      .filter((l) => l.row === row && l.load.model === 'open')
      .sort((a, b) => rateOf(a) - rateOf(b))
      .map((l) => judgeLevel(l, slo));
    const judged = levels.filter(
      (j): j is LevelJudgement & { verdict: SloVerdict } => j.verdict !== 'not judged',
    );
    const users = usersOf(r, row, slo);
    const closedLevels = (r.levels ?? []).filter((l) => l.row === row && l.load.model === 'closed').length;
    const trace = (r.levels ?? []).find((l) => l.row === row && l.load.model === 'trace');
    return {
      row,
      levels,
      clientBound: levels.filter((j) => j.verdict === 'not judged'),
      ...ladder(judged),
      ...(users ? { users } : {}),
      ...(closedLevels ? { closedLevels } : {}),
      ...(trace ? { trace: judgeLevel(trace, slo) } : {}),
    };
  });
}

const rate = (j: LevelJudgement): string => `${rateOf(j.level)} req/s`;
const list = (js: readonly LevelJudgement[]): string => {
  const r = js.map((j) => String(rateOf(j.level)));
  return `${r.length > 1 ? `${r.slice(0, -1).join(', ')} or ${r.at(-1)}` : r[0]} req/s`;
};

/** A row's name in the answer: a context as its label (8K), a workload as its label. */
export const rowLabel = (row: string): string => (/^\d+$/.test(row) ? contextLabel(Number(row)) : row);

// The first rate above the capacity that does not meet the level, and how.
function above(a: RowRateAnswer): { j: LevelJudgement; how: string } | undefined {
  const j = a.undecided[0] ?? a.limit;
  return j ? { j, how: j.verdict === 'fails' ? 'fails' : 'too close to call' } : undefined;
}

// A row without open levels: its closed loop's users at once and its trace, in words.
const usersWords = (a: RowRateAnswer): string | undefined =>
  a.users
    ? `${a.users.atLeast ? 'at least ' : ''}${a.users.users} user${a.users.users === 1 ? '' : 's'} at once`
    : a.closedLevels
      ? 'no number of users measured'
      : undefined;
const TRACE_VERDICT: Record<LevelJudgement['verdict'], string> = {
  meets: 'meets the service level',
  fails: 'fails the service level',
  'too close to call': 'is too close to call',
  'not judged': 'is client-bound, not judged',
};
function traceWords(j: LevelJudgement): string {
  const scale =
    j.level.load.model === 'trace' && j.level.load.timeScale !== 1 ? ` ×${j.level.load.timeScale}` : '';
  return `the trace${scale} (${Number(j.level.offeredRate.toPrecision(3))} req/s offered) ${TRACE_VERDICT[j.verdict]}`;
}
function noRatesPhrase(a: RowRateAnswer): string {
  return [usersWords(a), a.trace && traceWords(a.trace)].filter(Boolean).join('; ') || '—';
}

/** "3.1 req/s (3.4 fails)", "at least 8 req/s", "not even 0.5 req/s", "too close to call at 2 or 4 req/s". */
export function ratePhrase(a: RowRateAnswer): string {
  if (!a.levels.length) return noRatesPhrase(a);
  const bound = a.clientBound.length ? `; ${list(a.clientBound)} client-bound` : '';
  if (a.capacity && a.atLeast) return `at least ${rate(a.capacity)}${bound ? ` (${bound.slice(2)})` : ''}`;
  const next = above(a);
  if (a.capacity && next) return `${rate(a.capacity)} (${rateOf(next.j.level)} ${next.how}${bound})`;
  if (a.undecided.length) return `too close to call at ${list(a.undecided)}`;
  const lowest = a.levels.find((j) => j.verdict !== 'not judged');
  return lowest ? `not even ${rate(lowest)}` : `not judged (${list(a.clientBound)} client-bound)`;
}

/** "shared-prefix: 3.1 req/s meets the service level (3.4 fails it)", with the users at once where measured. */
export function rateSentence(a: RowRateAnswer): string {
  const head = `${rowLabel(a.row)}: `;
  if (!a.levels.length) {
    const users = usersWords(a);
    const parts = [
      users && `${users} ${a.users ? 'meet' : 'meets'} the service level`,
      a.trace && traceWords(a.trace),
    ].filter(Boolean);
    return `${head}${parts.join('; ') || 'nothing judged'}`;
  }
  const users = a.users
    ? `; ${a.users.atLeast ? 'at least ' : ''}${a.users.users} user${a.users.users === 1 ? '' : 's'} at once`
    : '';
  const next = above(a);
  if (a.capacity && a.atLeast)
    return `${head}every rate measured meets the service level, up to ${rate(a.capacity)}${users}`;
  if (a.capacity && next)
    return `${head}${rate(a.capacity)} meets the service level (${rateOf(next.j.level)} ${next.how === 'fails' ? 'fails it' : 'is too close to call'})${users}`;
  return `${head}${ratePhrase(a)}${users}`;
}

/** "96% of 310 requests met it at 3.1 req/s (goodput 2.98 req/s)", for the answer's rate. */
export function rateEvidence(a: RowRateAnswer): string {
  if (!a.levels.length) {
    const t = a.trace;
    if (!t || t.verdict === 'not judged') return '';
    const g = levelGoodput(t);
    return `${judgedText(t)} ${t.verdict === 'meets' && t.share?.basis === 'requests' ? 'met it' : 'judged'} in the trace's window${g !== null ? ` (goodput ${Number(g.toPrecision(3))} req/s)` : ''}`;
  }
  const j = a.capacity ?? a.undecided[0] ?? a.limit;
  if (!j) return '';
  const g = levelGoodput(j);
  const goodput = g !== null ? ` (goodput ${Number(g.toPrecision(3))} req/s)` : '';
  const met = j.share?.basis === 'requests' ? 'met it' : 'meets it';
  return `${judgedText(j)} ${j === a.capacity ? met : 'judged'} at ${rate(j)}${goodput}`;
}
