import { join } from 'node:path';
import { RESULT_FILE } from '../results/io.js';
import { loadResult } from '../results/read.js';
import type { RunResult } from '../results/schema.js';
import type { CliIo } from './io.js';

// report, compare and fit read a result file, a run folder, or a folder holding exactly one run (`run --out X`
// writes X/<runId>/): which run such a folder stood for is said on stderr, so the output stays the report.
export const resultReader =
  (io: CliIo) =>
  (path: string): RunResult =>
    loadResult(path, (run) => io.stderr.write(`reading ${join(run, RESULT_FILE)}: the one run in ${path}\n`));
