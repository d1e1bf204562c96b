import { analysisOf, type Analysis } from '../answer/analysis.js';
import type { RunResult } from '../results/schema.js';

// A finished run's analysis, once per result: the reports written beside it and the answer `run`, `demo` and `quick`
// print at the end share one twin fit (docs/report.md "The answer"). The runner writes the reports once the result
// holds its last cell and its complete status, so the result does not change after it is first asked for.
const finished = new WeakMap<RunResult, Analysis>();

export function finishedRunAnalysis(r: RunResult): Analysis {
  let a = finished.get(r);
  if (!a) {
    a = analysisOf(r);
    finished.set(r, a);
  }
  return a;
}
