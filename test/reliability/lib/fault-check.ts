import { join } from 'node:path';
import { ERROR_CODES } from '../../../src/errors.js';
import { FAIL_ERROR_FRACTION, FAIL_ERROR_MIN } from '../../../src/stats/status.js';
import { readRequestLines, type RequestLine } from '../../../src/results/io.js';
import { startSim } from '../../../src/sim/index.js';
import type { RunResult } from '../../../src/results/schema.js';
import { hasStackTrace, runBench, tempDir, type BenchRunResult } from './bench-run.js';
import { decodeKey } from '../../../src/results/cell-key.js';

export interface FaultCase {
  fault: string; // a name from src/sim/faults.ts FAULT_NAMES
  rate: number;
  params?: string; // extra grammar params, e.g. "ms=800"
}

// A run may stop only with these codes for these faults; every other fault must be survived (exit 0).
export const STOP_CODES: Record<string, string> = {
  refuse: 'TARGET_UNREACHABLE',
  '401': 'AUTH_FAILED',
  '404': 'MODEL_NOT_FOUND',
  'too-long': 'CONTEXT_TOO_LONG',
};
// The error kind each fault must be accounted as in the cell.
export const EXPECTED_KIND: Record<string, string | undefined> = {
  refuse: 'connect',
  '429': 'http_status',
  '503': 'http_status',
  '500': 'http_status',
  cut: 'stream_truncated',
  'error-event': 'stream_error_event',
  'bad-json': 'bad_json',
  stall: undefined, // slower than the client's idle timeout only when ms >= 60 s: measured, not an error
  'slow-headers': undefined,
};

export function faultSpec(c: FaultCase): string {
  return `${c.fault}:rate=${c.rate}${c.params ? `:${c.params}` : ''}`;
}

export interface FaultOutcome {
  spec: string;
  outcome: 'continued' | 'stopped' | 'broken';
  code?: string;
  injected: number; // requests the sim shaped with the fault
  cells: string[]; // "1024x2 Failed {http_status:3}"
  cellsLost: number;
  problems: string[]; // violated invariants; empty = survived
  ms: number;
}

// Runs the real CLI against an in-process sim with one fault and checks every reliability invariant.
export async function runFaultCase(
  c: FaultCase,
  opts: { seed?: number; extraArgs?: string[] } = {},
): Promise<FaultOutcome> {
  const t0 = Date.now();
  const spec = faultSpec(c);
  const sim = await startSim({ profile: 'tiny', port: 0, faults: spec, seed: opts.seed ?? 7 });
  const out = tempDir('fault');
  let r: BenchRunResult;
  try {
    r = await runBench(sim.baseUrl, out, 'run', opts.extraArgs ?? []);
    await new Promise((res) => setTimeout(res, 300)); // aborted streams reach the sim's truth log
  } finally {
    await sim.close();
  }
  const truth = sim.truth();
  const lines = readRequestLines(join(r.dir, 'requests.jsonl'));
  const problems = checkRun(c, r, lines, truth);
  const res = r.result;
  const cells = (res?.decode ?? []).map(
    (d) => `${d.contextTokens}x${d.concurrency} ${d.status} ${JSON.stringify(d.errors ?? {})}`,
  );
  return {
    spec,
    outcome: problems.length > 0 ? 'broken' : r.code === 0 ? 'continued' : 'stopped',
    ...(r.errorCode ? { code: r.errorCode } : {}),
    injected: truth.filter((t) => t.fault !== undefined).length,
    cells,
    cellsLost: lostCells(r, lines),
    problems,
    ms: Date.now() - t0,
  };
}

// Decode cells that finished their window (requests.jsonl says so) but are missing from result.json. The cell
// in progress when a run stops is not finished; every other one must be kept.
function lostCells(r: BenchRunResult, lines: RequestLine[]): number {
  const inLog = new Set(lines.filter((l) => l.phase === 'window').map((l) => l.cell));
  const kept = new Set((r.result?.decode ?? []).map((d) => decodeKey(d.contextTokens, d.concurrency)));
  const missing = [...inLog].filter((c) => !kept.has(c)).length;
  return r.code === 0 ? missing : Math.max(0, missing - 1);
}

type Truth = ReturnType<Awaited<ReturnType<typeof startSim>>['truth']>;

export function checkRun(c: FaultCase, r: BenchRunResult, lines: RequestLine[], truth: Truth): string[] {
  const p: string[] = [];
  const res: RunResult | undefined = r.result;
  if (r.code === null) p.push(`CLI did not exit (signal ${r.signal})`);
  if (hasStackTrace(r.stderr + r.stdout)) p.push('a stack trace reached the terminal');
  if (!res) p.push('no valid result.json');
  const stopCode = STOP_CODES[c.fault];
  if (r.code === 0) {
    if (r.errorLines.length > 0) p.push(`exit 0 with an error line: ${r.errorLines[0]}`);
    if (res && res.status !== 'complete') p.push(`exit 0 but result status ${res.status}`);
  } else if (r.code !== null) {
    const other = r.stderr.split('\n').filter((l) => l.trim() !== '' && !r.errorLines.includes(l));
    if (r.errorLines.length !== 1) p.push(`expected one error line, got ${r.errorLines.length}`);
    if (other.length > 0) p.push(`extra stderr lines: ${other.slice(0, 2).join(' | ')}`);
    const code = r.errorCode as keyof typeof ERROR_CODES | undefined;
    if (!code || !(code in ERROR_CODES)) p.push(`no stable error code in: ${r.stderr.trim()}`);
    else if (ERROR_CODES[code] !== r.code) p.push(`exit ${r.code} does not match ${code}`);
    if (code !== stopCode)
      p.push(`fault ${c.fault} stopped the run with ${code} (allowed: ${stopCode ?? 'none'})`);
    // A server that stopped answering: the line names the whole command that continues the run.
    if (code === 'TARGET_UNREACHABLE' && !/`\S.* run --resume \S+`/.test(r.errorLines[0] ?? ''))
      p.push(`no resume command in: ${r.errorLines[0]}`);
    if (res && res.status !== 'failed' && !(res.status === 'complete' && res.error?.code === code))
      p.push(`stopped run left status ${res.status}`);
  }
  if (!res) return p;

  // Every request the sim received under this run's ids is in requests.jsonl exactly once, and reached the
  // server once, or twice when its line says it was sent again (its reused connection closed unanswered,
  // docs/performance.md "Connections the server closes"): no hidden retry. A `refuse` on a new connection
  // stays a failure; one on a reused connection is sent once more.
  const runIds = truth.map((t) => t.requestId).filter((id): id is string => id !== undefined);
  const seen = new Map<string, number>();
  for (const id of runIds) seen.set(id, (seen.get(id) ?? 0) + 1);
  const resent = new Set(lines.filter((l) => l.resentAfter !== undefined).map((l) => l.requestId));
  for (const [id, n] of seen)
    if (n > (resent.has(id) ? 2 : 1))
      p.push(`request ${id} reached the server ${n} times${resent.has(id) ? ' (sent again once)' : ''}`);
  const logged = new Set(lines.map((l) => l.requestId));
  const connectId = [...seen.keys()].find((id) => id.endsWith('-1'));
  const unlogged = [...seen.keys()].filter((id) => id !== connectId && !logged.has(id));
  if (unlogged.length > 0) p.push(`${unlogged.length} requests reached the server but not requests.jsonl`);
  // A request aborted at the window close may never have reached the server's handler.
  const extra = lines
    .filter((l) => l.errorKind !== 'aborted' && !seen.has(l.requestId))
    .map((l) => l.requestId);
  if (extra.length > 0) p.push(`${extra.length} logged requests never reached the server: ${extra[0]}`);

  // Each decode cell accounts for its failures: errors by kind equal the logged failed requests.
  for (const d of res.decode) {
    if (d.status === 'Over capacity' || d.error?.startsWith('CONTEXT_TOO_LONG')) continue;
    const key = decodeKey(d.contextTokens, d.concurrency);
    const mine = lines.filter((l) => l.cell === key && (l.phase === 'ramp' || l.phase === 'window'));
    const failed = mine.filter((l) => l.status === 'error' && l.errorKind !== 'aborted');
    const byKind: Record<string, number> = {};
    for (const l of failed) byKind[l.errorKind!] = (byKind[l.errorKind!] ?? 0) + 1;
    const errs = Object.fromEntries(Object.entries(d.errors ?? {}).filter(([k, v]) => k !== 'aborted' && v));
    if (JSON.stringify(sortKeys(errs)) !== JSON.stringify(sortKeys(byKind)))
      p.push(`${key}: errors ${JSON.stringify(errs)} but the log holds ${JSON.stringify(byKind)}`);
    if (d.requestsSent !== undefined && d.requestsSent !== mine.length)
      p.push(`${key}: requestsSent ${d.requestsSent} but ${mine.length} requests logged`);
    const nErr = failed.length;
    const tooMany = nErr >= FAIL_ERROR_MIN && nErr >= FAIL_ERROR_FRACTION * mine.length;
    if (tooMany && d.status !== 'Failed')
      p.push(`${key}: ${nErr}/${mine.length} failed yet status ${d.status}`);
    if (d.status === 'Failed' && d.totalTokensPerS !== null)
      p.push(`${key}: Failed but carries a throughput`);
    const kind = EXPECTED_KIND[c.fault];
    if (kind && nErr > 0 && !(kind in byKind)) p.push(`${key}: fault ${c.fault} not accounted as ${kind}`);
  }
  if (lostCells(r, lines) > 0) p.push(`${lostCells(r, lines)} finished cells missing from result.json`);
  return p;
}

const sortKeys = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).sort());

// At most `limit` cases at once: runs compete for the same CPUs as the sim.
export async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
