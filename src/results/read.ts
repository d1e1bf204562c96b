import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fsError } from '../fs-errors.js';
import { BenchError } from '../errors.js';
import { importV062Text } from './import-v062.js';
import { RunResult, type RunResult as RunResultT } from './schema.js';

// The one result reader: a result.json (or the run directory holding it), or a v0.6.2 text report imported
// on the fly so old reports compare with new runs directly. --resume reads through it too (readResult).

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

// A result this tool wrote (no v0.6.2 import): what --resume continues. A cut-off or edited result.json (a crash,
// a full disk) cannot be continued: say what to do instead.
const DAMAGED_HINT =
  'Start a new run (or import the report again); the measured requests stay in requests.jsonl next to it.';

export function readResult(path: string): RunResultT {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw fsError('RESULT_INVALID', `cannot read result ${path}`, e);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new BenchError('RESULT_INVALID', `${path} is damaged: it is not JSON (${(e as Error).message}).`, {
      hint: DAMAGED_HINT,
    });
  }
  const r = RunResult.safeParse(data);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new BenchError(
      'RESULT_INVALID',
      `${path} is not a result of this tool: ${i?.path.join('.')}: ${i?.message}`,
      { hint: DAMAGED_HINT },
    );
  }
  if (r.data.status === 'imported')
    throw new BenchError('RESULT_INVALID', `${path} is an imported report, not a run this tool wrote.`);
  return r.data;
}
