import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fsError } from '../fs-errors.js';
import { BenchError } from '../errors.js';
import { importV062Text } from './import-v062.js';
import { RESULT_FILE } from './io.js';
import type { z } from 'zod';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import {
  RESULT_SCHEMA_ID,
  RESULT_SCHEMA_VERSION,
  RunResult,
  type RunResult as RunResultT,
} from './schema.js';

// The one result reader: a result.json (or the run directory holding it), or a v0.6.2 text report imported
// on the fly so old reports compare with new runs directly. --resume reads through it too (readResult).

// The run folders directly inside a folder (each holds a result.json), oldest first: run ids start with the time.
export function runFoldersIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
  return names.map((n) => join(dir, n)).filter((d) => existsSync(join(d, RESULT_FILE)));
}

export interface FoundResult {
  file: string;
  picked?: string; // the run folder taken because the folder given holds exactly this one run
}

// A result file, a run folder, or a folder holding exactly one run (`run --out X` writes X/<runId>/result.json):
// several runs there is a question only the user can answer, so it is refused with the list.
export function findResult(path: string): FoundResult {
  let dir: boolean;
  try {
    dir = statSync(path).isDirectory();
  } catch (e) {
    throw fsError('RESULT_INVALID', `cannot read ${path}`, e);
  }
  if (!dir) return { file: path };
  const direct = join(path, RESULT_FILE);
  if (existsSync(direct)) return { file: direct };
  const runs = runFoldersIn(path);
  if (runs.length === 1) return { file: join(runs[0]!, RESULT_FILE), picked: runs[0]! };
  if (runs.length === 0)
    throw new BenchError('RESULT_INVALID', `${path} holds no ${RESULT_FILE}, and no run folder that does.`, {
      hint: 'Pass a run folder (<out>/<runId>) or its result.json.',
    });
  const listed = runs.slice(-5).map((r) => join(path, basename(r)));
  const more = runs.length - listed.length;
  throw new BenchError('USAGE', `${path} holds ${runs.length} runs; say which.`, {
    hint: `Pass one of them: ${listed.join(', ')}${more ? ` (and ${more} older)` : ''}.`,
  });
}

export function resolveResultPath(path: string): string {
  return findResult(path).file;
}

// A result this tool wrote and --resume would continue: when it is cut off or edited (a crash, a full disk) it
// cannot be continued, so the error says what to do instead.
const DAMAGED_HINT =
  'Start a new run (or import the report again); the measured requests stay in requests.jsonl next to it.';

// Parses JSON text with a schema (the whole result, or the part an index keeps); a one-line error naming the file
// and the first problem otherwise.
export function parseJsonAs<T>(
  schema: z.ZodType<T>,
  text: string,
  path: string,
  o: { hint?: string; damaged?: boolean } = {},
): T {
  const hint = o.hint ? { hint: o.hint } : undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const why = `not JSON (${(e as Error).message})`;
    throw new BenchError('RESULT_INVALID', `${path} is ${o.damaged ? `damaged: it is ${why}` : why}.`, hint);
  }
  refuseNewer(data, path);
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : '(root)';
    throw new BenchError(
      'RESULT_INVALID',
      `${path} is not a valid result file: ${where}: ${issue?.message ?? 'invalid'}` +
        (parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more problems)` : '') +
        '.',
      hint,
    );
  }
  return parsed.data;
}

// A result from a newer tool (a schema version past ours) is refused in its own words: its fields may mean what
// this version cannot know, so reading it as far as it parses would mislead.
function refuseNewer(data: unknown, path: string): void {
  if (data === null || typeof data !== 'object') return;
  const { schema, version } = data as { schema?: unknown; version?: unknown };
  if (schema !== RESULT_SCHEMA_ID || typeof version !== 'number' || !(version > RESULT_SCHEMA_VERSION))
    return;
  throw new BenchError(
    'RESULT_INVALID',
    `${path} is a version ${version} result, written by a newer ${TOOL_NAME}; ${TOOL_VERSION} reads versions up to ${RESULT_SCHEMA_VERSION}.`,
    {
      hint: `Read it with the ${TOOL_NAME} that wrote it, or a later one (npm install ${TOOL_NAME}@latest).`,
    },
  );
}

/** A result of any version this tool reads, as the current version: version 2 only added optional fields
 * (load levels, the rate search, the workload and load model), so a version 1 document reads unchanged. */
export function upgradeResult(r: RunResultT): RunResultT {
  return r.version === RESULT_SCHEMA_VERSION ? r : { ...r, version: RESULT_SCHEMA_VERSION };
}

export function parseResultText(text: string, path: string, forResume = false): RunResultT {
  if (!forResume && text.trimStart().startsWith('Speed test matrix')) return importV062Text(text);
  return upgradeResult(
    parseJsonAs(
      RunResult,
      text,
      path,
      forResume
        ? { hint: DAMAGED_HINT, damaged: true }
        : { hint: 'Pass a result.json written by `run`, or a v0.6.2 text report.' },
    ),
  );
}

// `picked` hears which run a folder of one run stood for (the CLI says so).
export function loadResult(path: string, picked?: (runDir: string) => void): RunResultT {
  const found = findResult(path);
  if (found.picked) picked?.(found.picked);
  const file = found.file;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw fsError('RESULT_INVALID', `cannot read ${file}`, e);
  }
  return parseResultText(text, file);
}

// A result this tool wrote (no v0.6.2 import): what --resume continues.
export function readResult(path: string): RunResultT {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw fsError('RESULT_INVALID', `cannot read result ${path}`, e);
  }
  const r = parseResultText(text, path, true);
  if (r.status === 'imported')
    throw new BenchError('RESULT_INVALID', `${path} is an imported report, not a run this tool wrote.`);
  return r;
}
