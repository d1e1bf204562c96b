import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  builtCliAndSim,
  folderInClone,
  hintCommands,
  paste,
  pastedProblem,
  stopAll,
  userShellEnv,
  type Pasted,
} from '../helpers/as-pasted.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { engineSettings } from '../../src/engines/index.js';
import { optionsFor } from '../../src/config/options.js';
import { startSim } from '../../src/sim/index.js';
import { fastFlags, tempDir } from './run-helpers.js';

// The commands the CLI's hints print, run as a user pastes them after `npm ci` without a
// global install. None may end in "command not found" or a USAGE error; a --help must print the help.
const NPX = 'npx llm-inference-bench';

async function pasteAll(lines: string[], cwd?: string): Promise<Pasted[]> {
  const running: ChildProcess[] = [];
  const out: Pasted[] = [];
  try {
    // In order: a server a hint starts (sim, serve) keeps running for the command after it.
    for (const line of lines)
      out.push(await paste(line, { waitMs: 25_000, running, ...(cwd ? { cwd } : {}) }));
  } finally {
    await stopAll(running);
  }
  for (const p of out) expect(pastedProblem(p)).toBeUndefined();
  return out;
}

// The CLI started as a user starts it after `npm ci`, in its own process group (Ctrl-C reaches all of it).
function startAsUser(args: string[]) {
  const child = spawn('npx', ['llm-inference-bench', ...args], {
    cwd: REPO_ROOT,
    env: userShellEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  return { child, stderr: () => stderr, closed };
}

describe('hints run as printed (after npm ci, no global install)', () => {
  const simNow = builtCliAndSim();

  it('usage mistakes, missing arguments and a profile that is not a twin point at commands that run', async () => {
    const mistakes = [
      'runn',
      'plan --max-model-len 32K --durration 5',
      'probe --base-url',
      'predict',
      'report',
      'predict --twin profiles/demo.yaml',
    ];
    const printed: string[] = [];
    const answers = await Promise.all(mistakes.map((m) => paste(`${NPX} ${m}`)));
    for (const [i, m] of mistakes.entries()) {
      const p = answers[i]!;
      expect(p.code, p.stderr).not.toBe(0);
      expect(p.stderr).toMatch(/^error \[[A-Z_]+\]: /);
      const cmds = hintCommands(p.stderr);
      expect(cmds.length, `no command in the hint of "${m}": ${p.stderr}`).toBeGreaterThan(0);
      printed.push(...cmds);
    }
    for (const c of printed) expect(c.startsWith(`${NPX} `), c).toBe(true);
    const ran = await pasteAll([...new Set(printed)]);
    for (const r of ran.filter((x) => x.line.endsWith('--help'))) {
      expect(r.code, r.line).toBe(0);
      expect(r.stdout).toMatch(/^Usage: llm-inference-bench/);
    }
  });

  it('the demo refusing a long window names the sim and a run against it, both run', async () => {
    const p = await paste(`${NPX} demo --duration 60`);
    expect(p.code).toBe(2);
    const cmds = hintCommands(p.stderr);
    expect(cmds.map((c) => c.split(' ')[2])).toEqual(['sim', 'run']);
    const [sim, run] = await pasteAll(cmds, folderInClone('hint-demo'));
    expect(sim!.stillRunning, sim!.stderr).toBe(true); // a server
    expect(`${run!.stdout}${run!.stderr}`).toMatch(/run \S+: /); // it planned and started measuring
  });

  it('an interrupted run prints the resume command; pasted, it completes the run', async () => {
    const out = tempDir('hint-resume');
    const args = [
      ...fastFlags(simNow().baseUrl, out),
      '--contexts',
      '1K,2K',
      '--concurrency',
      '1,2',
      '--run-id',
      'r1',
    ];
    const { child, stderr: err, closed } = startAsUser(['run', ...args]);
    const path = join(out, 'r1', 'result.json');
    const deadline = Date.now() + 90_000;
    const cells = () =>
      existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { decode: unknown[] }).decode.length : 0;
    while (cells() < 1) {
      if (Date.now() > deadline) throw new Error(`no cell in time: ${err()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    process.kill(-child.pid!, 'SIGINT'); // Ctrl-C reaches the whole foreground group (npm dies of it too)
    await closed;
    const stderr = err();
    expect(stderr).toMatch(/^error \[INTERRUPTED\]: /m);
    const cmds = hintCommands(stderr);
    expect(cmds).toEqual([`${NPX} run --resume ${join(out, 'r1')}`]);
    // --resume given the --out folder instead of the run folder: the hint names the run folder inside.
    const wrong = await paste(`${NPX} run --resume ${out}`);
    expect(wrong.code).toBe(2);
    expect(hintCommands(wrong.stderr)).toEqual(cmds);
    const [resumed] = await pasteAll(cmds);
    expect(resumed!.code, resumed!.stderr).toBe(0);
    const result = JSON.parse(readFileSync(path, 'utf8')) as { status: string; decode: unknown[] };
    expect(result.status).toBe('complete');
    expect(result.decode).toHaveLength(4);
  });

  // The demo's simulated engine stops with it: `run --resume` pasted after a demo's Ctrl-C found no server.
  it('an interrupted demo names a command that starts it again, and it starts', async () => {
    const out = tempDir('hint-demo-int');
    const { child, stderr: err, closed } = startAsUser(['demo', '--duration', '1', '--out', out]);
    const deadline = Date.now() + 90_000;
    while (!/\[1\/\d+ measured/.test(err())) {
      if (Date.now() > deadline) throw new Error(`no cell in time: ${err()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    process.kill(-child.pid!, 'SIGINT');
    await closed;
    const stderr = err();
    expect(stderr).toMatch(/^error \[INTERRUPTED\]: .*cannot be continued; run the demo again/m);
    const cmds = hintCommands(stderr);
    expect(cmds).toEqual([`${NPX} demo --duration 1 --out ${out}`]);
    const [again] = await pasteAll(cmds);
    expect(`${again!.stdout}${again!.stderr}`).toMatch(/run \S+: /); // it planned and started measuring
  });

  // quick prints its plan, the answer's reasons and what to change: each flag it names is added to the quick
  // command that printed it and run (a flag named without a value gets one), each command it names is run as is.
  // Three servers give the three kinds of hint: no limit found (--concurrency), the KV cache full (--max-output,
  // beside vLLM's own flags) and levels too close to call on one seat (quick's line that decides them).
  it("quick's lines and the answer's lines it prints run added to the quick command that printed them", async () => {
    const sims = await Promise.all([
      startSim({ profile: 'tiny', port: 0, seed: 7 }),
      startSim({ profile: 'demo', port: 0, seed: 7 }),
      startSim({ profile: 'tiny', port: 0, seed: 7, overrides: { maxNumSeqs: 1 } }),
    ]);
    const quickFlags = new Set(optionsFor('quick').map((o) => o.flag.split(' ')[0]!));
    const vllm = engineSettings('vllm');
    const engineFlags = [vllm.seats, ...vllm.kv, vllm.chunk ?? ''].join(' ');
    const VALUE_FOR: Record<string, string> = { '--max-output': '64', '--slo': 'ttft=1s' };
    const seen = new Set<string>();
    const tried = new Set<string>();
    try {
      for (const [sim, budget] of [
        [sims[0]!, 6],
        [sims[1]!, 20],
        [sims[2]!, 8],
      ] as const) {
        const quick = `${NPX} quick --base-url ${sim.baseUrl} --budget ${budget} --out ${tempDir('hint-quick')}`;
        const first = await paste(quick, { toTheEnd: true, waitMs: 120_000 });
        expect(first.code, first.stderr).toBe(0);
        const out = first.stdout;
        const pasted: string[] = [...hintCommands(out)];
        // flags between backticks: quick's own, added to the command
        for (const m of out.matchAll(/`(--[^`]+)`/g)) {
          pasted.push(`${quick} ${m[1]}`);
          if (/^--concurrency [\d,]+ --duration \d+ --max-output \d+$/.test(m[1]!)) seen.add('decide');
        }
        const prose = out.replace(/`[^`]*`/g, '');
        for (const m of prose.matchAll(/(?<![\w-])(--[a-z][\w-]*)(?: ([\d,]+)(?=[\s.,;)]))?/g)) {
          const [, flag, value] = m as unknown as [string, string, string | undefined];
          seen.add(flag);
          if (!quickFlags.has(flag)) {
            expect(engineFlags, `${flag}: neither quick's flag nor the engine's setting`).toContain(flag);
            continue;
          }
          const v = value ?? VALUE_FOR[flag];
          expect(v, `no value to try ${flag} with`).toBeDefined();
          pasted.push(`${quick} ${flag} ${v}`);
        }
        // flags that ran once run: each set is tried once, on the first server that names it
        for (const line of new Set(pasted)) {
          const flag =
            line
              .slice(quick.length)
              .match(/--[\w-]+/g)
              ?.join(' ') ?? line;
          if (line.startsWith(quick) && tried.has(flag)) continue;
          tried.add(flag);
          const p = await paste(line, { toTheEnd: true, waitMs: 120_000 });
          expect(pastedProblem(p), line).toBeUndefined();
          expect(p.code, `${line}\n${p.stderr}`).toBe(0);
        }
      }
    } finally {
      await Promise.all(sims.map((x) => x.close()));
    }
    // the hints the issue found refused, and quick's own line for levels too close to call
    for (const f of ['--concurrency', '--max-output', '--slo', 'decide']) expect(seen.has(f), f).toBe(true);
  }, 400_000);
});
