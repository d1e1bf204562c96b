import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { BenchRun } from '../../src/bench/run.js';
import { toRunSettings } from '../../src/cli/run-settings.js';
import { withOptions } from '../../src/config/resolve.js';
import { loadResult } from '../../src/results/read.js';
import { loadProfile } from '../../src/sim/profiles.js';
import { judge } from './judge.js';
import { simulatedResult } from './sim-result.js';
import { generatedCase, JUDGE_SEEDS } from '../../bench/lib/twin-cases.js';
import { virtualRig } from '../bench/virtual-run.js';
import { runCliInProcess } from '../helpers/cli.js';

// The short run a twin asks for, run as printed: `plan --for-twin` on an engine the repository does not ship (drawn
// from a seed profile with a fixed seed, bench/lib/twin-cases.ts), each printed `run` through the real option
// table and the real runner against the sim in virtual time (one server for all of them, as a user's would be),
// then the printed `fit` and `predict`. The twin is judged on every cell it did not see against what the runner's
// rules give on the engine itself (the what-if, src/sim/what-if.ts): tok/s within 10% on 95%, TTFT within 25% on
// 90%, statuses on 95%. Contexts up to 128K (max model length 128K) keep the prompts' text small enough for a
// few minutes of CPU.
const MAX_MODEL_LEN = 131_072;
const DURATION_S = 10;
const MAX_OUTPUT = 1024;

const BASE_URL = 'http://127.0.0.1:9/v1'; // never dialled: the virtual rig's transport is in memory

/** A printed command line's arguments after the program name (`... llm-inference-bench run --x y`), with the
 * shell's part done: "$BASE_URL" filled in. */
function argsOf(line: string, command: string): string[] {
  const words = line.trim().replaceAll('"$BASE_URL"', BASE_URL).split(/\s+/);
  const at = words.indexOf(command);
  const end = words.indexOf('#');
  return words.slice(at + 1, end < 0 ? undefined : end);
}

/** The runner's settings for a printed `run` line, through the same option table the CLI parses with. */
function runSettings(args: string[], root: string) {
  const cmd = new Command('run').exitOverride();
  const resolve = withOptions(cmd, 'run');
  let settings: ReturnType<typeof toRunSettings> | undefined;
  cmd.action((flags: Record<string, unknown>) => {
    settings = toRunSettings(resolve(flags).options, undefined);
  });
  cmd.parse(args, { from: 'user' });
  return { ...settings!, out: join(root, settings!.out), reports: false };
}

describe.each(JUDGE_SEEDS)('plan --for-twin on an engine drawn from %s (seed %i)', (base, seed) => {
  it('runs the printed short runs, fits, predicts, and meets the targets on the cells it did not see', async () => {
    const root = mkdtempSync(join(tmpdir(), `llm-bench-twin-${seed}-`));
    const profile = loadProfile(generatedCase(base, seed).profile, { maxModelLen: MAX_MODEL_LEN });
    const plan = await runCliInProcess([
      'plan',
      '--for-twin',
      '--max-model-len',
      String(MAX_MODEL_LEN),
      '--kv-capacity',
      String(profile.kvCapacityTokens),
      '--max-output',
      String(MAX_OUTPUT),
      '--duration',
      String(DURATION_S),
    ]);
    expect(plan.code).toBe(0);
    const lines = plan.stdout.split('\n');
    const runs = lines.filter((l) => / run /.test(l)).map((l) => argsOf(l, 'run'));
    expect(runs.length).toBe(3);
    const rig = virtualRig({ sim: { profile }, metrics: {} }); // the server's metrics scraped, as a user's run would
    for (const args of runs) await rig.drive(new BenchRun(runSettings(args, root), rig.deps).start());

    const fitLine = argsOf(
      lines.find((l) => / fit /.test(l))!,
      'fit',
    );
    const twinFile = join(root, 'twin.yaml');
    const inputs = fitLine.slice(0, fitLine.indexOf('-o')).map((p) => join(root, p));
    const fit = await runCliInProcess(['fit', ...inputs, '-o', twinFile]);
    expect(fit.stderr).toContain('wrote');
    const out = join(root, 'predicted');
    const predicted = await runCliInProcess(['predict', '--twin', twinFile, '--out', out]);
    expect(predicted.code).toBe(0);
    const p = loadResult(out);

    const seen = new Set(
      inputs.flatMap((i) => loadResult(i).decode.map((c) => `${c.contextTokens}x${c.concurrency}`)),
    );
    const truth = simulatedResult(profile, {
      contexts: p.config.contexts,
      concurrency: p.config.concurrency,
      prefillContexts: p.config.prefillContexts,
      maxOutput: MAX_OUTPUT,
      windowS: DURATION_S,
    });
    const j = judge(truth, p, seen);
    const share = (f: keyof typeof j.figures) => j.figures[f].within / j.figures[f].judged;
    const misses = j.misses.join('; ');
    expect(j.figures.total.judged, misses).toBeGreaterThan(10);
    expect(share('total'), misses).toBeGreaterThanOrEqual(0.95);
    expect(share('perRequest'), misses).toBeGreaterThanOrEqual(0.95);
    expect(share('ttft'), misses).toBeGreaterThanOrEqual(0.9);
    expect(j.statusRight / j.cells, misses).toBeGreaterThanOrEqual(0.95);
  });
});
