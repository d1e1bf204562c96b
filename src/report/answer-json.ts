import type { Analysis } from '../answer/analysis.js';
import { answerRows, capacityPhrase, serviceLevelLine } from '../answer/answer.js';
import type { CellJudgement } from '../answer/capacity.js';
import { ratePhrase, type LevelJudgement } from '../answer/levels.js';
import type { ShareJudgement } from '../stats/slo.js';
import { formatServiceLevel } from '../stats/slo.js';

// The answer as data, for `report --format json` (docs/report.md "Formats"): what the other formats print, judged
// under the same service level (--slo, else the run's own, else the default), with each figure it rests on.

const shareJson = (s: ShareJudgement | undefined) =>
  s
    ? {
        share: s.share,
        interval: s.interval,
        met: s.met,
        judged: s.judged,
        undecided: s.undecided,
      }
    : null;

const cellJson = (j: CellJudgement) => ({
  concurrency: j.cell.concurrency,
  status: j.cell.status,
  verdict: j.verdict,
  basis: j.basis,
  share: shareJson(j.share),
});

const levelJson = (j: LevelJudgement) => ({
  key: j.level.key,
  ...(j.level.load.model === 'open' ? { rate: j.level.load.rate } : {}),
  status: j.level.status,
  verdict: j.verdict,
  basis: j.basis,
  share: shareJson(j.share),
});

export function analysisJson(a: Analysis) {
  const rows = answerRows(a);
  return {
    serviceLevel: {
      ...a.slo,
      from: a.sloFrom,
      spelled: formatServiceLevel(a.slo),
      words: serviceLevelLine(a),
    },
    basis: a.basis,
    predicted: a.predicted,
    single: a.single ?? null,
    contexts: a.contexts.map((c, i) => ({
      contextTokens: c.contextTokens,
      users: c.capacity?.cell.concurrency ?? null,
      atLeast: c.atLeast,
      phrase: capacityPhrase(c),
      evidence: rows[i]!.evidence,
      limit: c.limit?.cell.concurrency ?? null,
      undecided: c.undecided.map((j) => j.cell.concurrency),
      reason: {
        kind: c.reason.kind,
        short: c.reason.short,
        why: rows[i]!.why,
        change: c.reason.change,
        ...(c.reason.unknown ? { unknown: c.reason.unknown } : {}),
      },
      cells: c.cells.map(cellJson),
    })),
    whatIf: a.whatIf.map((w) => ({ contextTokens: w.contextTokens, text: w.text, predicted: true })),
    ...(a.rates
      ? {
          rates: a.rates.map((r) => ({
            row: r.row,
            rate: r.capacity?.level.load.model === 'open' ? r.capacity.level.load.rate : null,
            atLeast: r.atLeast,
            phrase: ratePhrase(r),
            ...(r.users ? { users: r.users } : {}),
            levels: r.levels.map(levelJson),
          })),
        }
      : {}),
  };
}
