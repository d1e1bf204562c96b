import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRequestLines, type RequestLine } from '../../src/results/io.js';
import { RunResult } from '../../src/results/schema.js';
import { startSim, type SimHandle, type SimOptions, type TruthRecord } from '../../src/sim/index.js';

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

export const truthById = (sim: SimHandle): Map<string, TruthRecord> =>
  new Map(sim.truth().flatMap((t) => (t.requestId ? [[t.requestId, t] as const] : [])));
