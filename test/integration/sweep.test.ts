import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readResult } from '../../src/results/read.js';
import type { RunResult } from '../../src/results/schema.js';
import { readSweepFile } from '../../src/results/sweep-io.js';
import { loadProfile } from '../../src/sim/profiles.js';
import { simulateCell } from '../../src/sim/what-if.js';
import { cliCommand, REPO_ROOT, runCli, unwrapped, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../reliability/lib/bench-run.js';

// `sweep` against the real sim CLI as the launched server (docs/sweep.md): the report names the configuration the
// sim's own model (simulateCell) says is fastest, a bad flag fails alone, a server killed mid-run and a kill -9 of
// the sweep lose nothing that --resume cannot finish, and no server process outlives any of it (checked by pid).

const PROFILE = join(REPO_ROOT, 'test/fixtures/sweep/sim-profile.yaml');
const TIME_SCALE = 2;
const { command, args } = cliCommand();
const SIM = [
  command,
  ...args,
  'sim',
  '--profile',
  PROFILE,
  '--time-scale',
  String(TIME_SCALE),
  '--port',
  '{port}',
]
  .map((w) => (/^[\w@%+=:,./{}-]+$/.test(w) ? w : `'${w}'`))
  .join(' ');
const MATRIX = [
  ...['--contexts', '1K,4K', '--prefill-contexts', '1K', '--concurrency', '1,4,8', '--max-output', '256'],
  ...['--duration', '1', '--ramp-timeout', '2', '--settle-timeout', '5', '--metrics-interval', '0.2'],
  ...['--server-ready-timeout', '60', '--server-stop-timeout', '5', '--quiet'],
];

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};
// A process is gone when /proc no longer has it, or has only its zombie.
const gone = (pid: number): boolean => {
  if (!alive(pid)) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(
  what: string,
  f: () => T | undefined,
  timeoutMs: number,
  sweep?: { child: ChildProcess; stderr: () => string },
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (sweep && sweep.child.exitCode !== null)
      throw new Error(`the sweep exited (${sweep.child.exitCode}) before ${what}: ${sweep.stderr()}`);
    const v = f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

// Every server pid a sweep recorded, seen by polling its sweep.json while it runs.
const seenPids = new Set<number>();
const started: ChildProcess[] = [];
function watchPids(dir: string): () => void {
  const t = setInterval(() => {
    try {
      for (const s of readSweepFile(dir).servers) if (s.process) seenPids.add(s.process.pid);
    } catch {
      // not written yet
    }
  }, 50);
  return () => clearInterval(t);
}

function startSweep(argv: string[]): {
  child: ChildProcess;
  done: Promise<CliResult>;
  stderr: () => string;
} {
  const child = spawn(command, [...args, 'sweep', ...argv], {
    cwd: REPO_ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done, stderr: () => stderr };
}

function cellsIn(dir: string, key: string): RunResult['decode'] {
  const path = join(dir, key, 'result.json');
  if (!existsSync(path)) return [];
  try {
    return readResult(path).decode;
  } catch {
    return [];
  }
}

afterAll(() => {
  for (const c of started) if (c.exitCode === null) c.kill('SIGKILL');
  // the last word on orphans: every server any sweep here started is gone
  expect([...seenPids].filter((pid) => !gone(pid))).toEqual([]);
});

describe('sweep against the sim', () => {
  it(
    'names the fastest configuration per cell as the sim model says; a bad flag fails alone',
    { timeout: 300_000 },
    async () => {
      const out = tempDir('sweep');
      const params = join(out, 'serve.yaml');
      // the bad configuration first: the sweep must go on past it
      writeFileSync(
        params,
        ['- { bogus-flag: 1 }', '- max-num-seqs: [2, 4, 8]', '  kv-capacity: [18000, 300000]', ''].join('\n'),
      );
      const dir = join(out, 'acc');
      const stop = watchPids(dir);
      const r = await runCli(
        ['sweep', '--serve-cmd', SIM, '--serve-params', params, '--out', out, '--run-id', 'acc', ...MATRIX],
        { timeoutMs: 280_000 },
      );
      stop();
      expect(r.code, r.stderr).toBe(0);
      const file = readSweepFile(dir);
      expect(file.status).toBe('complete');
      expect(file.runs.map((x) => x.status)).toEqual(['failed', ...Array<string>(6).fill('complete')]);
      const bad = file.runs[0]!;
      expect(bad.reason).toMatch(
        /^the server exited with code \d+ before it answered \/health or \/v1\/models$/,
      );
      expect(bad.logTail!.join('\n')).toMatch(/unknown option '--bogus-flag'/);
      expect(r.stdout).toContain(`failed: bogus-flag=1: ${bad.reason}`);
      // the words end the sweep's output, within 80 columns: who serves the most users first, per context
      const words = r.stdout.slice(r.stdout.indexOf('\nIn words\n'));
      expect(words).toMatch(/^\nIn words\n {2}Service level chat \(the default; --slo to change\): /);
      const flat = words.replace(/\n {4}/g, ' '); // a wrapped line goes on 4 spaces in
      expect(flat).toMatch(/\n {2}at 1K, [^\n]* serves? the most users under the service level/);
      expect(flat).toMatch(/\n {2}at 4K, /);
      for (const line of words.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
      for (const s of file.servers) expect(s.process).toBeUndefined();

      // The truth: the sim's model of each configuration, cell by cell (what `run` would measure).
      type Report = {
        configurations: Array<{ key: string }>;
        cells: Array<{
          contextTokens: number;
          concurrency: number;
          best: string;
          outcome: string;
          candidates: Array<{ configuration: string; totalTokensPerS: number; queued: boolean }>;
        }>;
      };
      const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
      const paramsOf = new Map(
        file.runs.map((x) => [x.key, file.servers.find((s) => s.key === x.server)!.params]),
      );
      const truthOf = (key: string, ctx: number, n: number): number => {
        const p = paramsOf.get(key)!;
        const profile = loadProfile(PROFILE, {
          maxNumSeqs: Number(p['max-num-seqs']),
          kvCapacityTokens: Number(p['kv-capacity']),
          timeScale: TIME_SCALE,
        });
        const f = simulateCell(profile, {
          contextTokens: ctx,
          concurrency: n,
          maxOutput: 256,
          windowS: 1,
          rampTimeoutS: 2,
        });
        return f.totalTokensPerS;
      };
      let decided = 0;
      for (const cell of report.cells) {
        const where = `${cell.contextTokens}x${cell.concurrency}`;
        const truth = cell.candidates
          .map((c) => ({
            key: c.configuration,
            true: truthOf(c.configuration, cell.contextTokens, cell.concurrency),
            got: c.totalTokensPerS,
          }))
          .sort((a, b) => b.true - a.true);
        const [first, second] = truth;
        const margin = second ? first!.true / second.true - 1 : Infinity;
        if (second && margin > 0.05) {
          decided += 1;
          // better beyond noise, or the only one of the two that ran every request at once (docs/sweep.md)
          expect(['faster', 'runner-up queues'], where).toContain(cell.outcome);
          expect(cell.best, where).toBe(first!.key);
        }
        if (cell.outcome === 'runner-up queues')
          expect(
            cell.candidates.slice(0, 2).map((c) => c.queued),
            where,
          ).toEqual([false, true]);
        if (cell.outcome === 'faster') {
          const named = truth.find((t) => t.key === cell.best)!;
          expect(first!.true / named.true - 1, `${where}: named ${cell.best}`).toBeLessThanOrEqual(0.03);
        }
        // every pair the model tells apart by more than 10% is measured in the same order
        for (const a of truth)
          for (const b of truth)
            if (a.true > b.true * 1.1)
              expect(a.got, `${where}: ${a.key} over ${b.key}`).toBeGreaterThan(b.got);
      }
      // 4K x 8: only the large KV runs it; maxNumSeqs 8 there is ~53% ahead of 4 (944 vs 616 tok/s at scale 2)
      expect(decided).toBeGreaterThanOrEqual(1);
      const txt = readFileSync(join(dir, 'report.txt'), 'utf8');
      for (const line of txt.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
      expect(txt).toContain('FAILED');
    },
  );

  it(
    'a server killed mid-run fails alone; kill -9 of the sweep, then --resume, finish every run; no orphan',
    { timeout: 300_000 },
    async () => {
      const out = tempDir('sweep-kill');
      const params = join(out, 'serve.yaml');
      writeFileSync(params, 'max-num-seqs: [4, 8]\n');
      const dir = join(out, 'k');
      const stop = watchPids(dir);
      // the sim requires the key the sweep hands it through {api_key}: it must reach no file
      const KEY = 'sk-sweep-secret-0123456789abcdef';
      const argv = [
        ...['--serve-cmd', `${SIM} --api-key {api_key}`, '--serve-params', params, '--api-key', KEY],
        ...['--out', out, '--run-id', 'k', ...MATRIX],
      ];
      const first = startSweep(argv);
      // 1) the first server dies (SIGKILL to its group) once its run has a cell
      const s0 = await until(
        'the first run to have a cell',
        () => {
          const f = existsSync(join(dir, 'sweep.json')) ? readSweepFile(dir) : undefined;
          const s = f?.servers[0];
          return s?.process && cellsIn(dir, s.key).length >= 1 ? s : undefined;
        },
        120_000,
        first,
      );
      process.kill(-s0.process!.pid, 'SIGKILL');
      // 2) the sweep goes on to the second server; kill -9 the sweep once that run has a cell
      const s1 = await until(
        'the second run to have a cell',
        () => {
          const s = readSweepFile(dir).servers[1]!;
          return s.process && cellsIn(dir, s.key).length >= 1 ? s : undefined;
        },
        120_000,
        first,
      );
      const cellsBefore = cellsIn(dir, s1.key).map(
        (c) => `${c.contextTokens}x${c.concurrency}@${c.startedAt}`,
      );
      first.child.kill('SIGKILL');
      const r1 = await first.done;
      expect(r1.signal).toBe('SIGKILL');
      let mid = readSweepFile(dir);
      expect(mid.runs[0]!.status).toBe('failed');
      expect(mid.runs[0]!.reason).toMatch(
        /^the server was killed by SIGKILL during the run \(\d+ cells kept\)$/,
      );
      expect(mid.runs[1]!.status).toBe('running');
      // the watchdog stops the orphaned server: SIGTERM to its group, the sim exits
      await until(
        'the orphaned server to be stopped by its watchdog',
        () => gone(s1.process!.pid) || undefined,
        20_000,
      );

      // 3) resume: the failed run goes on from its cells, the interrupted one from its last cell
      const second = startSweep(['--resume', dir, '--quiet', '--api-key', KEY]);
      // 4) and once more: kill -9 the sweep AND its watchdog, so only the next start can stop the server
      const s1b = await until(
        'the resumed server to run a cell',
        () => {
          const f = readSweepFile(dir);
          const s = f.servers.find(
            (x) => x.process && x.process.pid !== s1.process!.pid && x.process.pid !== s0.process!.pid,
          );
          return s?.process && f.runs.find((x) => x.server === s.key)?.status === 'running' ? s : undefined;
        },
        120_000,
        second,
      );
      const watchdogs = readdirSync('/proc')
        .filter((d) => /^\d+$/.test(d))
        .filter((d) => {
          try {
            const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
            return (
              cmd.includes('llm-inference-bench-sweep-watchdog') && cmd.includes(String(s1b.process!.pid))
            );
          } catch {
            return false;
          }
        })
        .map(Number);
      expect(watchdogs).toHaveLength(1);
      process.kill(watchdogs[0]!, 'SIGKILL');
      second.child.kill('SIGKILL');
      await second.done;
      await sleep(500);
      expect(alive(s1b.process!.pid), 'the server outlives a sweep whose watchdog died').toBe(true);

      // 5) the next start finds it by its recorded pid and marker, stops it, and finishes the sweep
      const third = await runCli(['sweep', '--resume', dir, '--api-key', KEY], { timeoutMs: 200_000 });
      stop();
      expect(third.code, third.stderr).toBe(0);
      expect(unwrapped(third.stderr)).toContain(
        `stopped a server left running by an earlier sweep (pid ${s1b.process!.pid}`,
      );
      expect(gone(s1b.process!.pid)).toBe(true);
      mid = readSweepFile(dir);
      expect(mid.status).toBe('complete');
      expect(mid.runs.map((x) => x.status)).toEqual(['complete', 'complete']);
      for (const run of mid.runs) {
        const cells = cellsIn(dir, run.key).map((c) => `${c.contextTokens}x${c.concurrency}`);
        expect(cells.sort(), run.key).toEqual(['1024x1', '1024x4', '1024x8', '4096x1', '4096x4', '4096x8']);
      }
      // the cells finished before the kill -9 are kept, not measured again
      const after = cellsIn(dir, s1.key).map((c) => `${c.contextTokens}x${c.concurrency}@${c.startedAt}`);
      for (const c of cellsBefore) expect(after).toContain(c);
      expect(existsSync(join(dir, 'report.html'))).toBe(true);
      // the key ran the servers and the requests, and reached no file: sweep.json, logs, results, reports
      const files = (d: string): string[] =>
        readdirSync(d, { withFileTypes: true }).flatMap((e) =>
          e.isDirectory() ? files(join(d, e.name)) : [join(d, e.name)],
        );
      const all = files(dir);
      expect(all.filter((f) => f.endsWith('server.log'))).toHaveLength(2);
      for (const f of all) expect(readFileSync(f, 'utf8'), f).not.toContain(KEY);
      expect(readFileSync(join(dir, 'sweep.json'), 'utf8')).toContain('--api-key <redacted>');
      expect(seenPids.size).toBeGreaterThanOrEqual(4);
    },
  );
});
