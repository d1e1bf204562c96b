import { join } from 'node:path';
import { whatIfFor } from '../answer/what-if.js';
import { renderReport } from '../report/index.js';
import { renderSweep } from '../report/sweep.js';
import { writeFileAtomic } from '../results/io.js';
import { loadSweep } from '../results/sweep-io.js';
import type { RunResult } from '../results/schema.js';
import { redactSecrets } from '../secrets.js';

// report.html and report.md beside a run's result; the runner calls it before the complete status is saved.
export async function writeReportsBeside(dir: string, result: RunResult): Promise<string[]> {
  const out: string[] = [];
  const whatIf = whatIfFor(result); // the suggested change's effect, from a twin of the run (docs/report.md)
  for (const [fmt, name] of [
    ['html', 'report.html'],
    ['md', 'report.md'],
  ] as const) {
    const path = join(dir, name);
    writeFileAtomic(path, redactSecrets(renderReport(result, fmt, { whatIf })));
    out.push(path);
  }
  return out;
}

// A sweep's report in every format beside its sweep.json, from the runs' results as they are now.
export async function writeSweepReports(dir: string): Promise<string[]> {
  const { file, results } = loadSweep(dir);
  const out: string[] = [];
  for (const fmt of ['html', 'md', 'txt', 'csv', 'json'] as const) {
    const path = join(dir, `report.${fmt}`);
    writeFileAtomic(path, redactSecrets(renderSweep(file, results, fmt)));
    out.push(path);
  }
  return out;
}
