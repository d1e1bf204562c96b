import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, runCliInProcess, type CliResult } from '../../helpers/cli.js';
import { readResult } from '../../../src/results/read.js';
import type { RunResult } from '../../../src/results/schema.js';

// The smallest matrix that still exercises prefill, warm-up, ramp and window against the tiny profile.
export function tinyArgs(contexts = '1K', concurrency = '1,2'): string[] {
  const prefill = contexts.split(',')[0]!;
  return [
    ...['--contexts', contexts, '--prefill-contexts', prefill, '--concurrency', concurrency],
    ...['--max-output', '64', '--duration', '0.5', '--ramp-timeout', '2'],
    ...['--settle-pause', '0', '--settle-timeout', '2', '--metrics-interval', '0.1'],
  ];
}
export const TINY_ARGS = tinyArgs();

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `llmib-${prefix}-`));
}

export interface BenchRunResult extends CliResult {
  dir: string;
  result?: RunResult;
  errorLines: string[];
  errorCode?: string; // the BenchError code of the one error line
}

const ERROR_LINE = /^error \[([A-Z_]+)\]: /;

// Runs the CLI (in this process, or as a child where the test needs one, e.g. a preload) and reads back what it
// left on disk.
export async function runBench(
  baseUrl: string,
  out: string,
  runId: string,
  extra: string[] = [],
  opts: { env?: NodeJS.ProcessEnv; child?: boolean } = {},
): Promise<BenchRunResult> {
  const args = [
    'run',
    '--base-url',
    baseUrl,
    '--out',
    out,
    '--run-id',
    runId,
    '--quiet',
    ...TINY_ARGS,
    ...extra,
  ];
  const r = await (opts.child ? runCli : runCliInProcess)(args, { ...(opts.env ? { env: opts.env } : {}) });
  return describeRun(r, join(out, runId));
}

export function describeRun(r: CliResult, dir: string): BenchRunResult {
  const errorLines = r.stderr.split('\n').filter((l) => ERROR_LINE.test(l));
  const out: BenchRunResult = { ...r, dir, errorLines };
  const m = errorLines.length === 1 ? ERROR_LINE.exec(errorLines[0]!) : null;
  if (m) out.errorCode = m[1]!;
  try {
    readFileSync(join(dir, 'result.json'));
    out.result = readResult(join(dir, 'result.json'));
  } catch {
    // no result written (e.g. refused before the run folder existed)
  }
  return out;
}

// A stack trace line ("    at fn (file:1:2)") must never reach the terminal without --debug.
export const hasStackTrace = (text: string): boolean => /^\s+at .+(\(|:\d+:\d+)/m.test(text);
