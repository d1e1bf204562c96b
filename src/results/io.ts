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
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { BenchError } from '../errors.js';
import { redactSecrets } from '../secrets.js';
import { RunResult, type ErrorKind } from './schema.js';

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

// One line of requests.jsonl: enough to recompute every figure of its cell (docs/method.md "Figures of a cell").
export interface RequestLine {
  cell: string; // "prefill 8192" | "decode 8192x4"
  phase: 'prefill' | 'warmup' | 'ramp' | 'window';
  contextTokens: number;
  concurrency?: number;
  repeat?: number; // 1..R when the cell was measured R > 1 times (--repeats); one cell key for all of them
  slot: number;
  requestId: string;
  sentAtMs: number; // epoch ms: the request's bytes went to the socket (TTFT starts here)
  calledAtMs?: number; // epoch ms: the client was asked to send (before undici's deferred write)
  // Sent twice: the first write (epoch ms), on a reused connection, met this close before a byte of answer;
  // sentAtMs is the second write's, on a new connection.
  firstSentAtMs?: number;
  resentAfter?: string;
  firstTokenAtMs?: number;
  endAtMs: number;
  chunks: Array<[number, number]>; // [ms after sentAtMs, tokens] of each token-bearing chunk
  outputTokens: number;
  reasoningTokens?: number;
  promptTokens?: number;
  cachedTokens?: number;
  tokenCountSource: string;
  chunkAttribution?: 'exact' | 'estimated'; // which chunk carried which token (src/client/attribution.ts)
  unpinnedTokens?: number; // tokens placed by the character split, when estimated
  finishReason?: string;
  status: 'ok' | 'error';
  errorKind?: ErrorKind;
  httpStatus?: number;
  error?: string;
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

// Chunk times come back as absolute epoch ms.
export function readRequestLines(path: string): RequestLine[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const out: RequestLine[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const l = JSON.parse(line) as RequestLine;
      l.chunks = l.chunks.map(([dt, n]) => [l.sentAtMs + dt, n]);
      out.push(l);
    } catch {
      // a torn last line after kill -9: the cell it belongs to is redone on resume
    }
  }
  return out;
}

// On resume: keep only the lines of finished cells (a cell interrupted mid-way is measured again).
export function keepRequestLines(path: string, keep: (cell: string) => boolean): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    writeFileSync(path, '');
    return;
  }
  const kept = text.split('\n').filter((line) => {
    if (line.trim() === '') return false;
    try {
      return keep((JSON.parse(line) as { cell: string }).cell);
    } catch {
      return false;
    }
  });
  writeFileAtomic(path, kept.length ? kept.join('\n') + '\n' : '');
}
