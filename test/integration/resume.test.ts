import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimHandle } from '../../src/sim/index.js';
import { cliCommand, REPO_ROOT, runCliInProcess } from '../helpers/cli.js';
import { fastFlags, readRun, runDirs, startTestSim, tempDir } from './run-helpers.js';
import { decodeKey } from '../../src/results/cell-key.js';

const matrix = ['--contexts', '1K,2K', '--concurrency', '1,2,4', '--max-output', '256', '--run-id', 'r1'];

// Starts the real CLI, waits until the result holds `cells` decode cells (or `levels` load levels), then sends
// `signal`.
async function runUntil(
  args: string[],
  dir: string,
  cells: number,
  signal: NodeJS.Signals,
  count: (r: { decode: unknown[]; levels?: unknown[] }) => number = (r) => r.decode.length,
) {
  const { command, args: pre } = cliCommand();
  const child = spawn(command, [...pre, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const path = join(dir, 'result.json');
    if (existsSync(path)) {
      const n = count(JSON.parse(readFileSync(path, 'utf8')) as { decode: unknown[] });
      if (n >= cells) break;
    }
    if (Date.now() > deadline) throw new Error(`no ${cells} cells in time: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill(signal);
  return { code: await exited, stderr };
}

describe('interrupt and resume', () => {
  let sim: SimHandle;
  beforeAll(async () => {
    sim = await startTestSim();
  });
  afterAll(async () => sim.close());

  it(
    'kill -9 mid-run, then --resume: finished cells unchanged, the rest completed, one result',
    { timeout: 120_000 },
    async () => {
      const out = tempDir('resume');
      const dir = join(out, 'r1');
      const killed = await runUntil(['run', ...fastFlags(sim.baseUrl, out), ...matrix], dir, 2, 'SIGKILL');
      expect(killed.code).toBeNull();
      const before = readRun(dir);
      expect(before.result.status).toBe('running');
      const kept = before.result.decode;
      expect(kept.length).toBeGreaterThanOrEqual(2);
      const keptCells = new Set(kept.map((c) => decodeKey(c.contextTokens, c.concurrency)));
      const keptLines = before.lines.filter((l) => keptCells.has(l.cell));

      const r = await runCliInProcess([
        'run',
        '--resume',
        dir,
        '--settle-pause',
        '0.1',
        '--metrics-interval',
        '0.1',
      ]);
      expect(r.stderr).not.toMatch(/error \[/);
      expect(r.code).toBe(0);
      expect(runDirs(out)).toEqual([dir]);
      const after = readRun(dir);
      expect(after.result.status).toBe('complete');
      expect(after.result.runId).toBe('r1');
      expect(after.result.decode.map((c) => `${c.contextTokens}x${c.concurrency}`)).toEqual([
        '1024x1',
        '1024x2',
        '1024x4',
        '2048x1',
        '2048x2',
        '2048x4',
      ]);
      for (const c of kept)
        expect(
          after.result.decode.find(
            (x) => x.contextTokens === c.contextTokens && x.concurrency === c.concurrency,
          ),
        ).toEqual(c);
      // Every cell measured (the sim runs 8 at once, so none should queue; on a starved machine the client's
      // timeline can see a late first token as a wait, which is about load, not about resume).
      for (const c of after.result.decode) {
        expect(['Valid', 'Requests queued']).toContain(c.status);
        expect(c.totalTokensPerS).toBeGreaterThan(0);
      }
      expect(after.result.decode.filter((c) => c.status === 'Valid').length).toBeGreaterThanOrEqual(5);
      // the kept cells' request lines are untouched, the redone cell's partial lines are gone, no request twice
      expect(after.lines.filter((l) => keptCells.has(l.cell))).toEqual(keptLines);
      const ids = after.lines.map((l) => l.requestId);
      expect(new Set(ids).size).toBe(ids.length);
      // same prompts: a resumed cell's requests hit the server's prefix cache from before the kill
      const resumed = after.result.decode.filter(
        (c) => !keptCells.has(decodeKey(c.contextTokens, c.concurrency)),
      );
      expect(resumed.length).toBeGreaterThan(0);
      const first = resumed[0]!;
      const warm = after.lines.find(
        (l) =>
          l.cell === decodeKey(first.contextTokens, first.concurrency) &&
          l.phase === 'warmup' &&
          l.slot === 1,
      )!;
      const truth = sim.truth().find((t) => t.requestId === warm.requestId)!;
      expect(truth.cachedTokens).toBeGreaterThan(0.9 * first.contextTokens);
      expect(existsSync(join(dir, 'report.html'))).toBe(true);
    },
  );

  it(
    'kill -9 mid rate search, then --resume: finished levels unchanged and not measured again, the search goes on from its steps',
    { timeout: 120_000 },
    async () => {
      const out = tempDir('resume-search');
      const dir = join(out, 's1');
      const search = [
        ...['--workload', 'shared-prefix:prefixes=2,prefix=512,suffix=128', '--find-rate', '--rates', '2'],
        ...['--search-windows', '5', '--warmup', '0.3', '--max-output', '32', '--run-id', 's1'],
      ];
      const levels = (r: { levels?: unknown[] }) => r.levels?.length ?? 0;
      const killed = await runUntil(
        ['run', ...fastFlags(sim.baseUrl, out), ...search],
        dir,
        2,
        'SIGKILL',
        levels,
      );
      expect(killed.code).toBeNull();
      const before = readRun(dir);
      expect(before.result.status).toBe('running');
      const kept = before.result.levels!;
      const steps = before.result.rateSearch![0]!.steps;
      // Each finished level was saved with its step, both or neither.
      expect(steps.map((x) => x.level)).toEqual(kept.map((l) => l.key));
      const keptKeys = new Set(kept.map((l) => l.key));
      const keptLines = before.lines.filter((l) => keptKeys.has(l.cell));
      expect(keptLines.length).toBeGreaterThan(0);

      const r = await runCliInProcess(['run', '--resume', dir, '--settle-pause', '0.1']);
      expect(r.code, r.stderr).toBe(0);
      const after = readRun(dir);
      expect(after.result.status).toBe('complete');
      const s = after.result.rateSearch![0]!;
      expect(s.done).toBe(true);
      expect(s.steps.slice(0, steps.length)).toEqual(steps); // continued, not restarted
      expect(s.steps.length).toBeGreaterThan(steps.length);
      expect(s.steps.map((x) => x.level)).toEqual(after.result.levels!.map((l) => l.key));
      for (const l of kept) expect(after.result.levels!.find((x) => x.key === l.key)).toEqual(l);
      // The kept levels' lines are untouched (their requests were not sent again), none twice.
      expect(after.lines.filter((l) => keptKeys.has(l.cell))).toEqual(keptLines);
      const ids = after.lines.map((l) => l.requestId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(after.result.config.load).toMatchObject({ model: 'open', findRate: true, searchWindows: 5 });
    },
  );

  it(
    'Ctrl-C: writes the result as interrupted, says how to resume, exits 130',
    { timeout: 120_000 },
    async () => {
      const out = tempDir('sigint');
      const dir = join(out, 'r1');
      const stopped = await runUntil(['run', ...fastFlags(sim.baseUrl, out), ...matrix], dir, 1, 'SIGINT');
      expect(stopped.code).toBe(130);
      expect(stopped.stderr).toMatch(/error \[INTERRUPTED\]: .*--resume /s);
      const { result } = readRun(dir);
      expect(result.status).toBe('interrupted');
      const r = await runCliInProcess(['run', '--resume', '--out', dir, '--settle-pause', '0.1']);
      expect(r.code, r.stderr).toBe(0);
      expect(readRun(dir).result.decode).toHaveLength(6);
      // nothing left to resume
      const again = await runCliInProcess(['run', '--resume', dir]);
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/already complete/);
    },
  );
});
