import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BenchError } from '../errors.js';
import { fsError } from '../fs-errors.js';
import { redactSecrets } from '../secrets.js';
import { RESULT_FILE, writeFileAtomic } from './io.js';
import { parseJsonAs, readResult } from './read.js';
import type { RunResult } from './schema.js';
import { SWEEP_FILE, SweepFile } from './sweep-schema.js';

// sweep.json written atomically (a kill -9 leaves the old or the new state) and scrubbed of secrets.
export function writeSweepFile(dir: string, file: SweepFile): string {
  const path = join(dir, SWEEP_FILE);
  writeFileAtomic(path, redactSecrets(JSON.stringify(SweepFile.parse(file), null, 2)) + '\n');
  return path;
}

export function readSweepFile(dir: string): SweepFile {
  const path = join(dir, SWEEP_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw fsError('USAGE', `no sweep in ${dir}: cannot read ${SWEEP_FILE}`, e, 'Pass the sweep folder.');
  }
  return parseJsonAs(SweepFile, text, path);
}

export const isSweepDir = (dir: string): boolean => existsSync(join(dir, SWEEP_FILE));

// A sweep with the results its runs have so far (a run that never started has none).
export interface LoadedSweep {
  dir: string;
  file: SweepFile;
  results: Map<string, RunResult>; // by run key
}

export function loadSweep(dir: string): LoadedSweep {
  const file = readSweepFile(dir);
  const results = new Map<string, RunResult>();
  for (const r of file.runs) {
    const path = join(dir, r.key, RESULT_FILE);
    if (!existsSync(path)) continue;
    try {
      results.set(r.key, readResult(path));
    } catch (e) {
      if (!(e instanceof BenchError)) throw e;
      // a damaged result is reported as missing; the sweep file says why the run stopped
    }
  }
  return { dir, file, results };
}
