import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRequestLines, type RequestLine } from '../../src/results/io.js';
import { RunResult, type DecodeCell } from '../../src/results/schema.js';
import { startSim, type SimHandle, type SimOptions, type TruthRecord } from '../../src/sim/index.js';
import { windowFigures, type TimedRequest } from '../../src/stats/window.js';

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `lib-${prefix}-`));
}

export function startTestSim(opts: SimOptions = {}): Promise<SimHandle> {
  return startSim({ profile: 'tiny', host: '127.0.0.1', port: 0, seed: 7, ...opts });
}

// The one run folder under an --out folder.
export function runDirs(out: string): string[] {
  return readdirSync(out, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(out, d.name));
}

export function readRun(dir: string): { result: RunResult; lines: RequestLine[] } {
  const result = RunResult.parse(JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')));
  return { result, lines: readRequestLines(join(dir, 'requests.jsonl')) };
}

// Short, fast flags for a tiny-profile run against the sim.
export function fastFlags(baseUrl: string, out: string): string[] {
  return [
    '--base-url',
    baseUrl,
    '--out',
    out,
    '--duration',
    '1',
    '--ramp-timeout',
    '0.5',
    '--settle-pause',
    '0.1',
    '--settle-timeout',
    '5',
    '--metrics-interval',
    '0.1',
  ];
}

// sentAtMs: the request's send time is a client fact (stamped before its bytes leave); the sim's arrivalMs is when
// its event loop got to the request, which lags the real arrival by milliseconds when N requests land together.
// Everything the server did (first token, chunks, end) comes from the truth log.
export function truthRequest(t: TruthRecord, sentAtMs: number = t.arrivalMs): TimedRequest {
  const r: TimedRequest = {
    sentAtMs,
    endAtMs: t.endMs,
    chunks: t.chunks,
    ok: t.reason === 'length' || t.reason === 'stop',
  };
  if (t.firstTokenMs !== undefined) r.firstTokenAtMs = t.firstTokenMs;
  if (t.reason === 'abort' || t.reason === 'preempted-abort') r.errorKind = 'aborted';
  return r;
}

// The cell's figures recomputed from the sim's ground truth (server send times) over the same window.
export function truthFigures(cell: DecodeCell, lines: RequestLine[], truth: Map<string, TruthRecord>) {
  const key = `decode ${cell.contextTokens}x${cell.concurrency}`;
  const mine = lines.filter((l) => l.cell === key && (l.phase === 'ramp' || l.phase === 'window'));
  const reqs = mine.map((l) => {
    const t = truth.get(l.requestId);
    if (!t) throw new Error(`no truth for ${l.requestId}`);
    return truthRequest(t, l.sentAtMs);
  });
  return {
    lines: mine,
    figures: windowFigures(reqs, { openMs: cell.windowOpenMs!, closeMs: cell.windowCloseMs! }),
  };
}

export const truthById = (sim: SimHandle): Map<string, TruthRecord> =>
  new Map(sim.truth().flatMap((t) => (t.requestId ? [[t.requestId, t] as const] : [])));

export const relDiff = (a: number, b: number): number => Math.abs(a - b) / Math.max(Math.abs(b), 1e-9);
