import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPoller, type PollStats } from './crash.js';
import { hasStackTrace, runBench, type BenchRunResult } from './bench-run.js';

export const ENOSPC_PRELOAD = fileURLToPath(new URL('./enospc-preload.mjs', import.meta.url));

// A small tmpfs where the sandbox allows mounting one (root with CAP_SYS_ADMIN); undefined elsewhere.
export function mountTmpfs(dir: string, sizeBytes: number): (() => void) | undefined {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return () => {
    try {
      execFileSync('umount', [dir], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  };
}

export interface FullDiskOutcome {
  run: BenchRunResult;
  poll: PollStats;
  maxCellsSeen: number; // most decode cells result.json ever held during the run
  problems: string[];
}

// Runs the CLI into `out` (a full-able place) and checks: one WRITE_FAILED line, no stack trace, and result.json
// still valid with every cell it ever held.
export async function fullDiskRun(
  baseUrl: string,
  out: string,
  extra: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<FullDiskOutcome> {
  const dir = join(out, 'full');
  const poll = startPoller(dir, 10);
  let maxCellsSeen = 0;
  const watch = setInterval(() => {
    try {
      const r = JSON.parse(
        execFileSync('cat', [join(dir, 'result.json')], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        }),
      ) as { decode: unknown[] };
      maxCellsSeen = Math.max(maxCellsSeen, r.decode.length);
    } catch {
      // not there yet
    }
  }, 50);
  const run = await runBench(baseUrl, out, 'full', extra, { env, child: true });
  clearInterval(watch);
  const stats = poll.stop();
  const p: string[] = [];
  if (run.code !== 10)
    p.push(`exit ${run.code}, expected 10 (WRITE_FAILED): ${run.stderr.trim().slice(0, 300)}`);
  if (run.errorCode !== 'WRITE_FAILED') p.push(`error line: ${run.errorLines.join(' | ') || '(none)'}`);
  if (!/the disk is full/.test(run.errorLines[0] ?? ''))
    p.push('the error line does not say the disk is full');
  if (hasStackTrace(run.stderr)) p.push('stack trace on stderr');
  if (stats.invalid.length) p.push(`invalid reads: ${stats.invalid.slice(0, 2).join('; ')}`);
  if (!run.result) p.push('result.json is not a valid result after the disk filled');
  else if (run.result.decode.length < maxCellsSeen)
    p.push(`result.json lost cells: held ${maxCellsSeen}, now ${run.result.decode.length}`);
  return { run, poll: stats, maxCellsSeen, problems: p };
}
