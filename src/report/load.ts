import { fsError } from '../fs-errors.js';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BenchError } from '../errors.js';
import { importV062Text } from '../results/import-v062.js';
import { RunResult, type RunResult as RunResultT } from '../results/schema.js';

// Reading side for report/compare: a result.json (or the run directory holding it), or a v0.6.2 text
// report imported on the fly so old reports compare with new runs directly.

export function resolveResultPath(path: string): string {
  try {
    return statSync(path).isDirectory() ? join(path, 'result.json') : path;
  } catch {
    throw new BenchError('RESULT_INVALID', `cannot read ${path}: no such file or directory.`);
  }
}

export function parseResultText(text: string, path: string): RunResultT {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('Speed test matrix')) return importV062Text(text);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new BenchError('RESULT_INVALID', `${path} is not JSON (${(e as Error).message}).`, {
      hint: 'Pass a result.json written by `run`, or a v0.6.2 text report.',
    });
  }
  const parsed = RunResult.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : '(root)';
    throw new BenchError(
      'RESULT_INVALID',
      `${path} is not a valid result file: ${where}: ${issue?.message ?? 'invalid'}` +
        (parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more problems)` : '') +
        '.',
    );
  }
  return parsed.data;
}

export function loadResult(path: string): RunResultT {
  const file = resolveResultPath(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw fsError('RESULT_INVALID', `cannot read ${file}`, e);
  }
  return parseResultText(text, file);
}

/** Writes through a temporary file and a rename so a reader never sees half a report. */
export function writeOutput(path: string, content: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    // `import report.txt -o old/result.json` (the README's example) must work when old/ does not exist yet.
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, content);
    renameSync(tmp, path);
  } catch (e) {
    throw fsError('WRITE_FAILED', `cannot write ${path}`, e);
  }
}
