import { readFileSync } from 'node:fs';
import type { RequestLine } from '../../src/results/io.js';
import type { TruthRecord } from '../../src/sim/index.js';
import type { TimedRequest } from '../../src/stats/window.js';

export function readJsonLines<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

export function truthById(path: string): Map<string, TruthRecord> {
  const m = new Map<string, TruthRecord>();
  for (const t of readJsonLines<TruthRecord>(path)) if (t.requestId) m.set(t.requestId, t);
  return m;
}

// The truth records appended since byte `from` (whole lines only): a long benchmark reads each cell's share of a
// growing log once. Returns the records and where the next read starts.
export function truthSince(path: string, from: number): { truth: Map<string, TruthRecord>; next: number } {
  const buf = readFileSync(path);
  const end = buf.lastIndexOf(0x0a) + 1;
  const truth = new Map<string, TruthRecord>();
  if (end <= from) return { truth, next: from };
  for (const l of buf.subarray(from, end).toString('utf8').split('\n')) {
    if (l.trim() === '') continue;
    const t = JSON.parse(l) as TruthRecord;
    if (t.requestId) truth.set(t.requestId, t);
  }
  return { truth, next: end };
}

// A truth record as the window accounting reads a client record: server send times instead of arrival times.
export function truthAsTimed(t: TruthRecord): TimedRequest {
  return {
    sentAtMs: t.arrivalMs,
    ...(t.firstTokenMs !== undefined ? { firstTokenAtMs: t.firstTokenMs } : {}),
    endAtMs: t.endMs,
    chunks: t.chunks,
    ok: t.reason === 'length' || t.reason === 'stop',
  };
}

export function lineAsTimed(l: RequestLine): TimedRequest {
  return {
    sentAtMs: l.sentAtMs,
    ...(l.firstTokenAtMs !== undefined ? { firstTokenAtMs: l.firstTokenAtMs } : {}),
    endAtMs: l.endAtMs,
    chunks: l.chunks,
    ok: l.status === 'ok',
  };
}

// Every chunk the client counted equals the sim's chunk at the same position (tokens exact, none lost or merged);
// a completed request has exactly the sim's total.
export function countsExact(l: RequestLine, t: TruthRecord): boolean {
  if (l.chunks.length > t.chunks.length) return false;
  for (let i = 0; i < l.chunks.length; i++) if (l.chunks[i]![1] !== t.chunks[i]![1]) return false;
  return l.status !== 'ok' || l.outputTokens === t.outputTokens;
}
