import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RunResult } from '../../../src/results/schema.js';
import { cliCommand } from '../../helpers/cli.js';
import { tinyArgs, describeRun, type BenchRunResult } from './bench-run.js';
import { decodeKey } from '../../../src/results/cell-key.js';
import { mulberry32 } from '../../../src/rng.js';

// Crash safety: SIGKILL the real CLI at seeded random moments, resume each time, and compare the final result
// with an uninterrupted run. A poller reads the result files the whole time: they must parse at every moment.
export const CRASH_ARGS = tinyArgs('1K,2K', '1,2');

// The seeded generator of the sim and the prompts, re-exported for the crash schedules.
export { mulberry32 };

export interface PollStats {
  reads: number; // successful reads of result.json
  invalid: string[]; // reads that were not a valid result (must stay empty)
  logReads: number;
  tornLogLines: number; // a torn last line of requests.jsonl (allowed only right after a kill)
}

// Reads result.json (and requests.jsonl) every few ms until stopped.
export function startPoller(dir: string, everyMs = 15): { stop: () => PollStats } {
  const s: PollStats = { reads: 0, invalid: [], logReads: 0, tornLogLines: 0 };
  const timer = setInterval(() => {
    const path = join(dir, 'result.json');
    if (existsSync(path)) {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        return; // renamed away between exists and read
      }
      try {
        const r = RunResult.safeParse(JSON.parse(text));
        if (!r.success) s.invalid.push(`schema: ${r.error.issues[0]?.message}`);
        else s.reads++;
      } catch (e) {
        s.invalid.push(`JSON: ${(e as Error).message.slice(0, 80)} (${text.length} bytes)`);
      }
    }
    const log = join(dir, 'requests.jsonl');
    if (existsSync(log)) {
      const lines = readFileSync(log, 'utf8').split('\n');
      s.logReads++;
      // Only the last line may be incomplete while the writer appends.
      for (const l of lines.slice(0, -1))
        try {
          JSON.parse(l);
        } catch {
          if (l.trim() !== '') s.invalid.push(`requests.jsonl line not JSON: ${l.slice(0, 60)}`);
        }
    }
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return s;
    },
  };
}

export interface Attempt {
  killedAtMs?: number; // undefined: it ran to the end
  exit: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

// One CLI process; SIGKILL after killAfterMs unless it ends first.
export function runKillable(args: string[], killAfterMs: number | undefined): Promise<Attempt> {
  const { command, args: pre } = cliCommand();
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...pre, ...args], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.resume();
    let killed = false;
    const timer =
      killAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            killed = true;
            child.kill('SIGKILL');
          }, killAfterMs);
    const safety = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      clearTimeout(safety);
      resolve({
        ...(killed && signal === 'SIGKILL' ? { killedAtMs: killAfterMs } : {}),
        exit: code,
        signal,
        stderr,
      });
    });
  });
}

export interface ChainOutcome {
  runId: string;
  kills: number; // SIGKILLs that landed while the run was in progress
  attempts: Attempt[];
  final: BenchRunResult;
}

// A fresh run, then resumes; an attempt is killed at a seeded moment in [0, spanMs) unless it ends first. A run
// that ends completes its chain and the next kill starts a new run, until `kills` kills have landed.
export async function killResumeChains(o: {
  baseUrl: string;
  out: string;
  kills: number;
  spanMs: number;
  rng: () => number;
  onAttempt?: (a: Attempt, runId: string) => void;
}): Promise<ChainOutcome[]> {
  const chains: ChainOutcome[] = [];
  let kills = 0;
  let attemptsLeft = o.kills * 4 + 4;
  while (kills < o.kills && attemptsLeft > 0) {
    const runId = `chain${chains.length + 1}`;
    const dir = join(o.out, runId);
    const fresh = [
      'run',
      '--base-url',
      o.baseUrl,
      '--out',
      o.out,
      '--run-id',
      runId,
      '--quiet',
      ...CRASH_ARGS,
    ];
    const argsNow = () =>
      existsSync(join(dir, 'result.json')) ? ['run', '--resume', dir, '--quiet'] : fresh;
    const attempts: Attempt[] = [];
    let chainKills = 0;
    let last: Attempt | undefined;
    while (attemptsLeft-- > 0) {
      // A kill that landed after the complete result was written leaves nothing to resume.
      if (isComplete(dir)) {
        last = { exit: 0, signal: null, stderr: '' };
        break;
      }
      const killAt = kills < o.kills ? Math.round(o.rng() * o.spanMs) : undefined;
      const a = await runKillable(argsNow(), killAt);
      attempts.push(a);
      o.onAttempt?.(a, runId);
      if (a.killedAtMs === undefined) {
        last = a;
        break;
      }
      kills++;
      chainKills++;
    }
    last ??= await runKillable(argsNow(), undefined);
    if (attempts.at(-1) !== last) attempts.push(last);
    const final = describeRun({ code: last.exit, signal: last.signal, stdout: '', stderr: last.stderr }, dir);
    chains.push({ runId, kills: chainKills, attempts, final });
  }
  return chains;
}

function isComplete(dir: string): boolean {
  try {
    return (
      (JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { status?: string }).status ===
      'complete'
    );
  } catch {
    return false;
  }
}

export interface CellSet {
  decode: string[];
  prefill: number[];
}

export function cellSet(r: RunResult): CellSet {
  return {
    decode: r.decode.map((c) => `${c.contextTokens}x${c.concurrency}`),
    prefill: r.prefill.map((p) => p.contextTokens),
  };
}

// The final result against the uninterrupted one: same cells, none twice, each measured by one process.
export function compareWithBaseline(final: BenchRunResult, baseline: RunResult): string[] {
  const p: string[] = [];
  const r = final.result;
  if (final.code !== 0) p.push(`final attempt exited ${final.code}: ${final.stderr.trim().slice(0, 200)}`);
  if (!r) return [...p, 'no valid result.json after the last resume'];
  if (r.status !== 'complete') p.push(`final status ${r.status}`);
  const got = cellSet(r);
  const want = cellSet(baseline);
  const dup = (xs: readonly (string | number)[]) => xs.filter((x, i) => xs.indexOf(x) !== i);
  if (dup(got.decode).length) p.push(`duplicated cells: ${dup(got.decode).join(', ')}`);
  if (dup(got.prefill).length) p.push(`duplicated prefill points: ${dup(got.prefill).join(', ')}`);
  const lost = want.decode.filter((c) => !got.decode.includes(c));
  const extra = got.decode.filter((c) => !want.decode.includes(c));
  if (lost.length) p.push(`lost cells: ${lost.join(', ')}`);
  if (extra.length) p.push(`cells not in the uninterrupted run: ${extra.join(', ')}`);
  const lostP = want.prefill.filter((c) => !got.prefill.includes(c));
  if (lostP.length) p.push(`lost prefill points: ${lostP.join(', ')}`);
  // Statuses are not compared: Valid vs Failed can differ between two runs on a busy machine. Planned statuses
  // (Over capacity) do not depend on timing and must match.
  for (const c of r.decode) {
    const w = baseline.decode.find(
      (b) => b.contextTokens === c.contextTokens && b.concurrency === c.concurrency,
    );
    if (w && (w.status === 'Over capacity') !== (c.status === 'Over capacity'))
      p.push(`${c.contextTokens}x${c.concurrency}: status ${c.status}, uninterrupted ${w.status}`);
  }
  // requests.jsonl: every line parses, belongs to a kept cell, and each cell was measured by one process.
  const text = readFileSync(join(final.dir, 'requests.jsonl'), 'utf8');
  const keys = new Set(r.decode.map((c) => decodeKey(c.contextTokens, c.concurrency)));
  const prefixes = new Map<string, Set<string>>();
  const ids = new Set<string>();
  for (const l of text.split('\n')) {
    if (l.trim() === '') continue;
    let line: { cell: string; requestId: string; phase: string };
    try {
      line = JSON.parse(l) as typeof line;
    } catch {
      p.push(`requests.jsonl holds a torn line after the last resume: ${l.slice(0, 60)}`);
      continue;
    }
    if (ids.has(line.requestId)) p.push(`request ${line.requestId} logged twice`);
    ids.add(line.requestId);
    if (line.cell.startsWith('decode ') && !keys.has(line.cell))
      p.push(`log line of unknown cell ${line.cell}`);
    if (line.phase === 'ramp' || line.phase === 'window') {
      const prefix = line.requestId.replace(/-\d+$/, '');
      const s = prefixes.get(line.cell) ?? new Set<string>();
      s.add(prefix);
      prefixes.set(line.cell, s);
    }
  }
  for (const [cell, s] of prefixes)
    if (s.size > 1) p.push(`${cell} measured by ${s.size} processes (duplicated)`);
  for (const c of r.decode) {
    const k = decodeKey(c.contextTokens, c.concurrency);
    const n = text
      .split('\n')
      .filter((l) => l.includes(`"cell":"${k}"`) && /"phase":"(ramp|window)"/.test(l)).length;
    if (isMeasured(c.status) && c.requestsSent !== undefined && c.requestsSent !== n)
      p.push(`${k}: requestsSent ${c.requestsSent} but ${n} lines in requests.jsonl`);
  }
  for (const f of ['report.html', 'report.md'])
    if (!existsSync(join(final.dir, f))) p.push(`${f} missing from the complete run`);
  const stray = readdirSync(final.dir).filter((f) => f.endsWith('.tmp'));
  if (stray.length) p.push(`${stray.length} temporary files left in the run folder`);
  return p;
}

const isMeasured = (s: string) => s === 'Valid' || s === 'Requests queued';
