import { answerOf, capacityPhrase, type Answer } from '../answer/answer.js';
import { rateOf, rateSentence, type LevelJudgement } from '../answer/levels.js';
import type { RunResult, ServiceLevel } from '../results/schema.js';
import { levelRowsView } from './levels-model.js';

// The json format (docs/report.md "Formats"): the validated result file as it is; a result with load levels also
// carries `answer`, the answer judged under the report's service level (--slo, else the run's own, else the
// default) from the levels' stored requests: the users at once per context, and per row the highest rate meeting
// it with every level's verdict. A reader of results ignores the extra field.

const levelVerdict = (j: LevelJudgement, goodput: number | null) => ({
  key: j.level.key,
  status: j.level.status,
  verdict: j.verdict,
  basis: j.basis,
  met: j.share?.basis === 'requests' ? j.share.met : null,
  judged: j.share?.basis === 'requests' ? j.share.judged : null,
  share: j.share?.share ?? null,
  shareInterval: j.share?.interval ?? null,
  goodput,
});

function answerJson(r: RunResult, a: Answer) {
  const rows = levelRowsView(r, a.slo);
  return {
    serviceLevel: a.slo,
    serviceLevelFrom: a.sloFrom,
    usersAtOnce: a.contexts.map((c) => ({
      contextTokens: c.contextTokens,
      users: c.capacity?.cell.concurrency ?? null,
      atLeast: c.atLeast,
      phrase: capacityPhrase(c),
    })),
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
        levels: (view?.levels ?? []).map((v) => levelVerdict(v.judgement, v.goodput)),
      };
    }),
  };
}

export function renderJson(r: RunResult, opts: { slo?: ServiceLevel } = {}): string {
  if (!r.levels?.length) return JSON.stringify(r, null, 2) + '\n';
  return JSON.stringify({ ...r, answer: answerJson(r, answerOf(r, opts.slo)) }, null, 2) + '\n';
}
