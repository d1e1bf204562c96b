// Length files and traces as JSON lines (docs/workloads.md "Files"): `{"input_length": N, "output_length": M}`
// for lengths, plus `"hash_ids": [...]` for Mooncake traces and `"timestamp": ms` for a schedule; other fields
// are ignored. Every problem names its line; a file read is read.ts, this is the pure part.
import { BenchError } from '../errors.js';
import { fmtInt } from '../format/index.js';

export interface TraceLine {
  /** The line's number in its file (1-based), for messages. */
  line: number;
  timestamp?: number;
  input: number;
  output: number;
  hashIds?: number[];
}

export interface TraceNeeds {
  /** Every line needs a timestamp (the file is a schedule). */
  timestamps?: boolean;
  /** Every line needs hash_ids, one per block of this many tokens (a Mooncake trace). */
  block?: number;
}

const HINT =
  'Each line is a JSON object like {"timestamp": 0, "input_length": 6758, "output_length": 500, ' +
  '"hash_ids": [0, 1, 2]}; see docs/workloads.md "Files".';

const wholeAtLeast = (v: unknown, min: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min;

// Each non-blank line's object with its 1-based number; a line that is not a JSON object is refused.
function* objects(text: string, fail: (line: number, message: string) => BenchError) {
  const rows = text.split('\n');
  for (let i = 0; i < rows.length; i++) {
    const raw = rows[i]!.trim();
    if (raw === '') continue;
    let j: unknown;
    try {
      j = JSON.parse(raw);
    } catch {
      throw fail(i + 1, 'not JSON');
    }
    if (j === null || typeof j !== 'object' || Array.isArray(j)) throw fail(i + 1, 'not a JSON object');
    yield [i + 1, j as Record<string, unknown>] as const;
  }
}

const failer = (what: string) => (line: number, message: string) =>
  new BenchError('CONFIG_INVALID', `${what} line ${line}: ${message}`, { hint: HINT });
const noRequests = (what: string) =>
  new BenchError('CONFIG_INVALID', `${what} has no requests`, { hint: HINT });

function timestampOf(o: Record<string, unknown>): number | undefined {
  const t = o.timestamp;
  return typeof t === 'number' && Number.isFinite(t) && t >= 0 ? t : undefined;
}
const TIMESTAMP_MSG = 'timestamp must be a number of milliseconds, at least 0';

/**
 * The lines of a length file or trace, checked. With timestamps on every line they come back in time order
 * (stable), so "earlier" means earlier in the schedule.
 */
export function parseTraceText(text: string, what: string, needs: TraceNeeds = {}): TraceLine[] {
  const out: TraceLine[] = [];
  const fail = failer(what);
  for (const [n, o] of objects(text, fail)) {
    if (!wholeAtLeast(o.input_length, 1))
      throw fail(n, 'input_length must be a whole number of tokens, at least 1');
    if (!wholeAtLeast(o.output_length, 1))
      throw fail(n, 'output_length must be a whole number of tokens, at least 1');
    const row: TraceLine = { line: n, input: o.input_length, output: o.output_length };
    if (o.timestamp !== undefined || needs.timestamps) {
      const t = timestampOf(o);
      if (t === undefined) throw fail(n, TIMESTAMP_MSG);
      row.timestamp = t;
    }
    if (needs.block !== undefined) {
      const ids = o.hash_ids;
      if (!Array.isArray(ids) || !ids.every((x) => wholeAtLeast(x, 0)))
        throw fail(n, 'hash_ids must be a list of whole numbers');
      const blocks = Math.ceil(row.input / needs.block);
      if (ids.length !== blocks)
        throw fail(
          n,
          `${ids.length} hash_ids for input_length ${fmtInt(row.input)}, which takes ${blocks} blocks of ` +
            `${needs.block} tokens: is the trace's block size another (block=...)?`,
        );
      row.hashIds = ids as number[];
    }
    out.push(row);
  }
  if (out.length === 0) throw noRequests(what);
  if (out.every((r) => r.timestamp !== undefined))
    out.sort((a, b) => a.timestamp! - b.timestamp! || a.line - b.line);
  return out;
}

/** A schedule's timestamps (ms, in time order): a `timestamp` on every line, any other field ignored. */
export function parseScheduleText(text: string, what: string): number[] {
  const fail = failer(what);
  const out: number[] = [];
  for (const [n, o] of objects(text, fail)) {
    const t = timestampOf(o);
    if (t === undefined) throw fail(n, TIMESTAMP_MSG);
    out.push(t);
  }
  if (out.length === 0) throw noRequests(what);
  return out.sort((a, b) => a - b);
}

/** What a trace holds besides timestamps, by its first line: hash ids (a Mooncake trace), lengths, or neither. */
export function traceKindOf(text: string, what: string): 'mooncake' | 'lengths' | 'schedule' {
  for (const [, o] of objects(text, failer(what))) {
    if (Array.isArray(o.hash_ids)) return 'mooncake';
    return o.input_length !== undefined ? 'lengths' : 'schedule';
  }
  throw noRequests(what);
}
