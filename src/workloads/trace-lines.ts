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

/**
 * The lines of a length file or trace, checked. With timestamps on every line they come back in time order
 * (stable), so "earlier" means earlier in the schedule.
 */
export function parseTraceText(text: string, what: string, needs: TraceNeeds = {}): TraceLine[] {
  const out: TraceLine[] = [];
  const fail = (line: number, message: string) =>
    new BenchError('CONFIG_INVALID', `${what} line ${line}: ${message}`, { hint: HINT });
  const rows = text.split('\n');
  for (let i = 0; i < rows.length; i++) {
    const raw = rows[i]!.trim();
    if (raw === '') continue;
    const n = i + 1;
    let j: unknown;
    try {
      j = JSON.parse(raw);
    } catch {
      throw fail(n, 'not JSON');
    }
    if (j === null || typeof j !== 'object' || Array.isArray(j)) throw fail(n, 'not a JSON object');
    const o = j as Record<string, unknown>;
    if (!wholeAtLeast(o.input_length, 1))
      throw fail(n, 'input_length must be a whole number of tokens, at least 1');
    if (!wholeAtLeast(o.output_length, 1))
      throw fail(n, 'output_length must be a whole number of tokens, at least 1');
    const row: TraceLine = { line: n, input: o.input_length, output: o.output_length };
    if (o.timestamp !== undefined || needs.timestamps) {
      if (typeof o.timestamp !== 'number' || !Number.isFinite(o.timestamp) || o.timestamp < 0)
        throw fail(n, 'timestamp must be a number of milliseconds, at least 0');
      row.timestamp = o.timestamp;
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
  if (out.length === 0) throw new BenchError('CONFIG_INVALID', `${what} has no requests`, { hint: HINT });
  if (out.every((r) => r.timestamp !== undefined))
    out.sort((a, b) => a.timestamp! - b.timestamp! || a.line - b.line);
  return out;
}
