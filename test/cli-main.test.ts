import { describe, expect, it } from 'vitest';
import { startSim } from '../src/sim/index.js';
import { runCliInProcess } from './helpers/cli.js';

describe('cli main', () => {
  it('prints help listing every command', async () => {
    const r = await runCliInProcess(['--help']);
    expect(r.code).toBe(0);
    for (const c of ['run', 'plan', 'probe', 'report', 'compare', 'import', 'sim', 'demo']) {
      expect(r.stdout).toMatch(new RegExp(`^\\s+${c}\\b`, 'm'));
    }
  });

  it("every command's --help fits 80 columns, piped as in a terminal", async () => {
    const top = await runCliInProcess(['--help']);
    const commands = [...top.stdout.matchAll(/^ {2}([a-z]+)\b/gm)]
      .map((m) => m[1]!)
      .filter((c) => c !== 'help');
    expect(commands).toContain('sweep');
    for (const c of ['', ...commands]) {
      const r = await runCliInProcess(c ? [c, '--help'] : ['--help']);
      expect(
        r.stdout.split('\n').filter((l) => l.length > 80),
        `${c} --help`,
      ).toEqual([]);
    }
  });

  it('suggests the closest command for a typo, without a stack trace', async () => {
    const r = await runCliInProcess(['runn']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error [USAGE]: unknown command 'runn' (did you mean run?). Run `npx llm-inference-bench --help` for the options.\n",
    );
  });

  it("turns commander's own errors into one USAGE line with exit 2 and the command's --help", async () => {
    const unknown = await runCliInProcess(['plan', '--max-model-len', '32K', '--durration', '5']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      "error [USAGE]: unknown option '--durration' (did you mean --duration?). Run `npx llm-inference-bench plan --help` for the options.\n",
    );
    const missing = await runCliInProcess(['probe', '--base-url']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      "error [USAGE]: option '--base-url <url>' argument missing. Run `npx llm-inference-bench probe --help` for the options.\n",
    );
    const choice = await runCliInProcess(['sim', '--flavor', 'vlm']);
    expect(choice.code).toBe(2);
    expect(choice.stderr).toMatch(
      /^error \[USAGE\]: option '--flavor <engine>' argument 'vlm' is invalid\. Allowed choices are vllm, .*\n$/,
    );
    expect(`${unknown.stdout}${missing.stdout}${choice.stdout}`).toBe('');
  });

  it('reads durations and token counts in plan flags (2m, 8K)', async () => {
    const r = await runCliInProcess([
      'plan',
      '--max-model-len',
      '16K',
      '--kv-capacity',
      '64K',
      '--max-output',
      '1K',
      '--contexts',
      '8K',
      '--concurrency',
      '1',
      '--duration',
      '2m',
      '--json',
    ]);
    expect(r.code).toBe(0);
    type PlanJson = { maxModelLen: number; kvCapacityTokens: number; maxOutput: number; estimate: unknown };
    const plan = JSON.parse(r.stdout) as PlanJson;
    expect([plan.maxModelLen, plan.kvCapacityTokens, plan.maxOutput]).toEqual([16384, 65536, 1024]);
    const args = ['plan', '--max-model-len', '16384', '--kv-capacity', '65536', '--max-output', '1024'];
    const estimate = async (d: string) => {
      const out = await runCliInProcess([
        ...args,
        '--contexts',
        '8192',
        '--concurrency',
        '1',
        '--duration',
        d,
        '--json',
      ]);
      return (JSON.parse(out.stdout) as PlanJson).estimate;
    };
    expect(plan.estimate).toEqual(await estimate('120'));
    expect(plan.estimate).not.toEqual(await estimate('30'));
  });

  it('plan --repeats N counts N windows per cell and at least N cold prefills per point', async () => {
    type Step = { kind: string; prompts: number; fixedS: number };
    const args = ['plan', '--max-model-len', '16K', '--contexts', '8K', '--concurrency', '1,2', '--json'];
    const steps = async (...more: string[]) =>
      (JSON.parse((await runCliInProcess([...args, ...more])).stdout) as { estimate: { steps: Step[] } })
        .estimate.steps;
    const one = await steps('--prefill-repeats', '1');
    const three = await steps('--prefill-repeats', '1', '--repeats', '3');
    expect(three.map((s) => s.kind)).toEqual(one.map((s) => s.kind));
    one.forEach((s, i) => {
      const t = three[i]!;
      if (s.kind === 'cell') expect(t.fixedS).toBeCloseTo(3 * s.fixedS, 9);
      if (s.kind === 'prefill') expect([s.prompts, t.prompts]).toEqual([1, 3]);
    });
    // the default: three cold prefills per point, so each has an interval
    expect((await steps()).find((s) => s.kind === 'prefill')!.prompts).toBe(3);
    // --prefill-repeats above --repeats stands
    const five = await steps('--repeats', '3', '--prefill-repeats', '5');
    expect(five.find((s) => s.kind === 'prefill')!.prompts).toBe(5);
    const text = await runCliInProcess(args.filter((a) => a !== '--json').concat('--repeats', '3'));
    expect(text.stdout).toMatch(/; each measured 3 times/);
    const zero = await runCliInProcess([...args, '--repeats', '0']);
    expect(zero.stderr).toBe('error [CONFIG_INVALID]: invalid options: --repeats: expected a value >= 1\n');
  });

  it('returns a typed error as its exit code, with one line and no stack trace', async () => {
    const r = await runCliInProcess(['report', '/nonexistent/result.json']);
    expect(r.stderr).toMatch(/^error \[\w+\]: .*\n$/);
    expect(r.code).toBeGreaterThan(1);
    expect(r.stdout).toBe('');
  });

  // "… no result.json Pass the run folder" read as one sentence; the message ends before its hint.
  it('ends the message with a full stop before its hint, whoever threw it', async () => {
    const r = await runCliInProcess(['sim', '--profile', 'no-such-profile']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error \[CONFIG_INVALID\]: unknown sim profile "no-such-profile"\. Use one of: demo, /,
    );
    const one = await runCliInProcess(['compare', 'a.json']);
    expect(one.stderr).toBe(
      'error [USAGE]: compare needs at least two results; it got 1. Pass the baseline first, then the runs to ' +
        'compare with it (result files or run folders).\n',
    );
  });

  // The help once said plan runs nothing; with --base-url it sends two prompts, and says so.
  it('says what plan sends, and plan --base-url sends the sim two prompts, no more', async () => {
    const help = await runCliInProcess(['--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'with --base-url it sends two short prompts to time prefill',
    );
    const sim = await startSim({ profile: 'tiny' });
    try {
      const r = await runCliInProcess([
        'plan',
        '--base-url',
        sim.baseUrl,
        '--contexts',
        '1K',
        '--concurrency',
        '1',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(sim.truth()).toHaveLength(2);
    } finally {
      await sim.close();
    }
  });
});
