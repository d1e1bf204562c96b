import { givenAnalysis, type Analysis } from '../answer/analysis.js';
import { answerRows, capacityPhrase, serviceLevelLine } from '../answer/answer.js';
import type { CellJudgement } from '../answer/capacity.js';
import { rateOf, rateSentence, type LevelJudgement } from '../answer/levels.js';
import type { RunResult } from '../results/schema.js';
import type { ShareJudgement } from '../stats/slo.js';
import { levelRowsView } from './levels-model.js';

// The json format (docs/report.md "Formats"): the validated result file as it is, and `answer`, the answer the other
// formats print, judged under the report's service level (--slo, else the run's own, else the default) from the
// result alone: per context the users at once with the limit, each cell's verdict, the reason, the change and the
// what-if; per row of load levels the highest rate meeting it with every level's verdict. A reader of results
// ignores the extra field.

// The share a verdict rests on, where each request was judged (a median request's 1 or 0 is not a share).
const shareJson = (basis: string, s: ShareJudgement | undefined) => {
  const requests = basis === 'requests' && s?.basis === 'requests' ? s : undefined;
  return {
    met: requests?.met ?? null,
    judged: requests?.judged ?? null,
    share: s?.share ?? null,
    shareInterval: s?.interval ?? null,
  };
};

const levelVerdict = (j: LevelJudgement, goodput: number | null) => ({
  key: j.level.key,
  status: j.level.status,
  verdict: j.verdict,
  basis: j.basis,
  ...shareJson(j.basis, j.share),
  goodput,
});

const cellVerdict = (j: CellJudgement) => ({
  concurrency: j.cell.concurrency,
  status: j.cell.status,
  verdict: j.verdict,
  basis: j.basis,
  ...shareJson(j.basis, j.share),
});

function answerJson(r: RunResult, a: Analysis) {
  const rows = levelRowsView(r, a.slo);
  const words = answerRows(a);
  return {
    serviceLevel: a.slo,
    serviceLevelFrom: a.sloFrom,
    serviceLevelWords: serviceLevelLine(a),
    basis: a.basis,
    predicted: a.predicted,
    single: a.single ?? null,
    usersAtOnce: a.contexts.map((c, i) => ({
      contextTokens: c.contextTokens,
      users: c.capacity?.cell.concurrency ?? null,
      atLeast: c.atLeast,
      phrase: capacityPhrase(c),
      evidence: words[i]!.evidence,
      limit: c.limit?.cell.concurrency ?? null,
      tooCloseToCall: c.undecided.map((j) => j.cell.concurrency),
      reason: {
        kind: c.reason.kind,
        short: c.reason.short,
        why: words[i]!.why,
        change: c.reason.change,
        ...(c.reason.unknown ? { unknown: c.reason.unknown } : {}),
      },
      cells: c.cells.map(cellVerdict),
    })),
    // The suggested changes' effects, predicted by a twin of the run (none without an analysis that fitted one).
    whatIf: a.whatIf.map((w) => ({ contextTokens: w.contextTokens, text: w.text })),
    rates: (a.rates ?? []).map((x) => {
      const next = x.undecided[0] ?? x.limit;
      const view = rows.find((v) => v.row === x.row);
      return {
        row: x.row,
        sentence: rateSentence(x),
        highestRate: x.capacity ? rateOf(x.capacity.level) : null,
        atLeast: x.atLeast,
        next: next ? { rate: rateOf(next.level), verdict: next.verdict } : null,
        tooCloseToCall: x.undecided.map((j) => rateOf(j.level)),
        clientBound: x.clientBound.map((j) => rateOf(j.level)),
        usersAtOnce: x.users ?? null,
        reason: x.reason
          ? {
              kind: x.reason.kind,
              rate: x.reason.rate,
              inFlight: x.reason.inFlight ?? null,
              why: x.reason.text,
              change: x.reason.change,
            }
          : null,
        levels: (view?.levels ?? []).map((v) => levelVerdict(v.judgement, v.goodput)),
      };
    }),
  };
}

export function renderJson(r: RunResult, analysis?: Analysis): string {
  const a = givenAnalysis(r, analysis ? { analysis } : {});
  return JSON.stringify({ ...r, answer: answerJson(r, a) }, null, 2) + '\n';
}
