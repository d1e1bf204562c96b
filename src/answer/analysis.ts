import type { RunResult, ServiceLevel } from '../results/schema.js';
import { answerOf, type Answer } from './answer.js';
import { whatIfNotes, type WhatIfNote } from './what-if.js';

// The analysis of a result under a service level (docs/report.md "The answer"): the answer (one user, users at once
// per context with the reason and what to change, the requests per second where the result has load levels) and the
// what-if a twin of the run predicts for each change. Fitting that twin is most of its cost (about a second for the
// demo's result), so a command computes the analysis once and every format it renders takes it; `serve` keeps it per
// file and service level (src/web/analysis-cache.ts).

export interface Analysis extends Answer {
  whatIf: WhatIfNote[]; // the suggested changes' effects, predicted; empty where no twin can be fitted
}

/** The analysis of a result under `slo` (else the result's own level, else the default). `whatIf: false` leaves the
 * twin out: the answer alone, as `compare` and a renderer called without an analysis show it. */
export function analysisOf(r: RunResult, slo?: ServiceLevel, o: { whatIf?: boolean } = {}): Analysis {
  const a = answerOf(r, slo);
  return { ...a, whatIf: o.whatIf === false ? [] : whatIfNotes(r, a, a.slo) };
}

/** The analysis a renderer was given, else the answer alone under `slo`: no what-if, whose twin is the command's to
 * fit, once. */
export function givenAnalysis(r: RunResult, o: { analysis?: Analysis; slo?: ServiceLevel }): Analysis {
  return o.analysis ?? analysisOf(r, o.slo, { whatIf: false });
}
