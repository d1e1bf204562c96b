import { join } from 'node:path';
import { analysisOf, type Analysis } from '../answer/analysis.js';
import { renderReport } from '../report/index.js';
import { renderSweepModel } from '../report/sweep.js';
import { sweepModel, type SweepModel } from '../report/sweep-model.js';
import { writeFileAtomic } from '../results/io.js';
import { loadSweep } from '../results/sweep-io.js';
import type { RunResult } from '../results/schema.js';
import { redactSecrets } from '../secrets.js';

// report.html and report.md beside a run's result; the runner calls it before the complete status is saved. The
// analysis (the answer and the suggested changes' effects, from a twin of the run: docs/report.md) is computed once
// for both, or given by a command that prints it too.
export async function writeReportsBeside(
  dir: string,
  result: RunResult,
  analysis: Analysis = analysisOf(result),
): Promise<string[]> {
  const out: string[] = [];
  for (const [fmt, name] of [
    ['html', 'report.html'],
    ['md', 'report.md'],
  ] as const) {
    const path = join(dir, name);
    writeFileAtomic(path, redactSecrets(renderReport(result, fmt, { analysis })));
    out.push(path);
  }
  return out;
}

// A sweep's report in every format beside its sweep.json, from the runs' results as they are now; the model they
// were rendered from comes back for the terminal's words.
export async function writeSweepReports(dir: string): Promise<{ paths: string[]; model: SweepModel }> {
  const { file, results } = loadSweep(dir);
  const model = sweepModel(file, results);
  const paths: string[] = [];
  for (const fmt of ['html', 'md', 'txt', 'csv', 'json'] as const) {
    const path = join(dir, `report.${fmt}`);
    writeFileAtomic(path, redactSecrets(renderSweepModel(model, fmt)));
    paths.push(path);
  }
  return { paths, model };
}
