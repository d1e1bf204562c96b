import { fsError } from '../fs-errors.js';
import {
  appendFileSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { BenchError } from '../errors.js';
import { redactSecrets } from '../secrets.js';
import { RequestLine } from './request-line.js';
import { RunResult } from './schema.js';

export { RequestLine };

export const RESULT_FILE = 'result.json';
export const REQUEST_LOG_FILE = 'requests.jsonl';

// Write to a temp file beside the target, fsync, rename: a reader (or a kill -9) sees the old or the new file.
export function writeFileAtomic(path: string, text: string): void {
  const tmp = join(dirname(path), `.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  try {
    // `import report.txt -o old/result.json` (the README's example) must work when old/ does not exist yet.
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(tmp, 'w');
    try {
      // A nearly full disk takes a short write without an error (the next write gets ENOSPC): loop until all
      // bytes are down, or a truncated file would replace the good one.
      const buf = Buffer.from(text, 'utf8');
      for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off, buf.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp); // a partial temp file would hold on to the little space left
    } catch {
      // never created
    }
    throw fsError('WRITE_FAILED', `cannot write ${path}`, e);
  }
}

// Validated before writing, and scrubbed of secrets: a result never carries the API key.
export function writeResult(dir: string, result: RunResult): string {
  const checked = RunResult.safeParse(result);
  if (!checked.success)
    throw new BenchError(
      'RESULT_INVALID',
      `internal: result does not match its schema: ${checked.error.issues[0]?.path.join('.')}: ${checked.error.issues[0]?.message}`,
    );
  const path = join(dir, RESULT_FILE);
  writeFileAtomic(path, redactSecrets(JSON.stringify(checked.data, null, 2)) + '\n');
  return path;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

export function appendRequestLines(path: string, lines: readonly RequestLine[]): void {
  if (lines.length === 0) return;
  const text = lines
    .map((l) => JSON.stringify({ ...l, chunks: l.chunks.map(([t, n]) => [round3(t - l.sentAtMs), n]) }))
    .join('\n');
  try {
    appendFileSync(path, redactSecrets(text) + '\n');
  } catch (e) {
    throw fsError('WRITE_FAILED', `cannot write ${path}`, e);
  }
}

// A line that does not read (not JSON, or not a RequestLine), with its 1-based number in the file.
export interface BadRequestLine {
  line: number;
  why: string;
}

// Each line of the file validated: the good ones (chunk times as absolute epoch ms) and the bad ones. A last line
// cut short by a kill -9 (no newline after it, not JSON) is neither: it was never written whole.
function readLog(path: string): { lines: Array<{ raw: string; line: RequestLine }>; bad: BadRequestLine[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { lines: [], bad: [] };
  }
  const rows = text.split('\n');
  const lines: Array<{ raw: string; line: RequestLine }> = [];
  const bad: BadRequestLine[] = [];
  rows.forEach((raw, i) => {
    if (raw.trim() === '') return;
    let data: unknown;
    try {
      data = JSON.parse(raw);
    } catch (e) {
      if (i === rows.length - 1) return; // torn: the cell it belongs to is redone on resume
      bad.push({ line: i + 1, why: `not JSON (${(e as Error).message})` });
      return;
    }
    const r = RequestLine.safeParse(data);
    if (!r.success) {
      const issue = r.error.issues[0];
      bad.push({ line: i + 1, why: `${issue?.path.join('.') || 'line'}: ${issue?.message ?? 'invalid'}` });
      return;
    }
    const l = r.data;
    l.chunks = l.chunks.map(([dt, n]) => [l.sentAtMs + dt, n]);
    lines.push({ raw, line: l });
  });
  return { lines, bad };
}

/**
 * requests.jsonl read back, every line validated; chunk times come back as absolute epoch ms. A bad line is one
 * RESULT_INVALID error naming the file and the line, unless `keepGood` (then the good lines are returned and
 * `onBad` hears of the others). A missing file is an empty log.
 */
export function readRequestLines(
  path: string,
  o: { keepGood?: boolean; onBad?: (bad: BadRequestLine) => void } = {},
): RequestLine[] {
  const { lines, bad } = readLog(path);
  const first = bad[0];
  if (first && !o.keepGood)
    throw new BenchError(
      'RESULT_INVALID',
      `${path} line ${first.line} is not a request record: ${first.why}.`,
      {
        hint: 'The file was edited or damaged; docs/result-schema.md "requests.jsonl" says what a line holds.',
      },
    );
  for (const b of bad) o.onBad?.(b);
  return lines.map((l) => l.line);
}

// On resume: keep only the good lines of finished cells (a cell interrupted mid-way is measured again); returns
// the lines dropped because they did not read (a torn last line is not counted: a kill -9 leaves one).
export function keepRequestLines(path: string, keep: (cell: string) => boolean): BadRequestLine[] {
  const { lines, bad } = readLog(path);
  const kept = lines.filter((l) => keep(l.line.cell)).map((l) => l.raw);
  writeFileAtomic(path, kept.length ? kept.join('\n') + '\n' : '');
  return bad;
}
