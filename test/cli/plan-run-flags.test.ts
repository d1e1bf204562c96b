import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { optionsFor, type OptionRow } from '../../src/config/options.js';
import type { RunResult } from '../../src/results/schema.js';
import { runCliInProcess } from '../helpers/cli.js';
import { tempDir } from '../integration/run-helpers.js';

const offline = ['plan', '--max-model-len', '16K', '--kv-capacity', '64K', '--max-output', '512'];

// `plan` takes every flag `run` takes, so a user can swap the verb.
describe('plan with run flags', () => {
  it('knows every run flag', () => {
    const plan = new Set(optionsFor('plan').map((o) => o.flag));
    expect(optionsFor('run').filter((o) => !plan.has(o.flag))).toEqual([]);
  });

  it('accepts flags that cannot change the plan and names them in one line (in --help order); the plan stays the same', async () => {
    const bare = await runCliInProcess(offline);
    const r = await runCliInProcess([
      ...offline,
      '--out',
      'elsewhere',
      '--workers',
      '2',
      '--http-client',
      'undici',
      '--title',
      'x',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(bare.stdout);
    expect(r.stderr).toBe(
      'note: --workers, --http-client, --out, --title do not change the plan (they matter when the run measures)\n',
    );
    expect(bare.stderr).toBe('');
  });

  // A value each kind of option accepts (not taken from the table's defaults: any valid value must do nothing).
  const valueFor = (o: OptionRow): string[] => {
    if (o.kind === 'bool') return [];
    if (o.choices) return [o.choices[o.choices.length - 1]!];
    const byKind: Partial<Record<OptionRow['kind'], string>> = {
      duration: '7',
      int: '3',
      number: '0.5',
      url: 'http://127.0.0.1:9',
      slo: 'ttft=1s',
      percent: '5%',
    };
    return [byKind[o.kind] ?? 'x'];
  };

  it('--help lists the run flags it takes apart, and every one of them leaves the plan as it is', async () => {
    const help = (await runCliInProcess(['plan', '--help'])).stdout.split('\n');
    const heading = help.indexOf('run flags (accepted, no effect on the plan):');
    expect(heading).toBeGreaterThan(help.indexOf('Options:'));
    const flagsIn = (lines: string[]) => lines.flatMap((l) => /^ {2}(--[a-z-]+)/.exec(l)?.[1] ?? []);
    const planFlags = flagsIn(help.slice(0, heading));
    const accepted = flagsIn(help.slice(heading));
    // the reviewer's list: none of them is offered as a plan flag
    for (const f of ['--quiet', '--run-id', '--title', '--agents', '--out', '--workers', '--seed'])
      expect(accepted).toContain(f);
    for (const f of ['--contexts', '--duration', '--kv-capacity', '--resume', '--json', '--for-twin'])
      expect(planFlags).toContain(f);
    const byFlag = new Map(optionsFor('plan').map((o) => [o.flag.split(' ')[0]!, o]));
    const args = accepted.flatMap((f) => [f, ...valueFor(byFlag.get(f)!)]);
    const bare = await runCliInProcess(offline);
    const r = await runCliInProcess([...offline, ...args]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(bare.stdout);
    expect(r.stderr).toBe(
      `note: ${accepted.join(', ')} do not change the plan (they matter when the run measures)\n`,
    );
  });

  it('lets the flags that shape the plan change it', async () => {
    const json = async (...extra: string[]) =>
      JSON.parse((await runCliInProcess([...offline, '--json', ...extra])).stdout) as {
        contexts: number[];
        counts: { cells: number; over: number };
        estimate: { totalS: number };
      };
    const base = await json();
    expect((await json('--contexts', '1K,2K')).contexts).toEqual([1024, 2048]);
    expect((await json('--duration', '60')).estimate.totalS).toBeGreaterThan(base.estimate.totalS);
    expect((await json('--kv-capacity', '64M')).counts.over).toBe(0);
  });

  // The golden virtual run (contexts 1K, 4K, 16K x 1, 4, 16; max output 64; KV 60,000), cut after its first four
  // cells and two prefill points, as a crash would leave it.
  function partialRun(): string {
    const full = JSON.parse(
      readFileSync(new URL('../fixtures/golden/virtual-run.json', import.meta.url), 'utf8'),
    ) as RunResult;
    const dir = join(tempDir('plan-resume'), full.runId);
    mkdirSync(dir, { recursive: true });
    const cut = {
      ...full,
      status: 'running',
      decode: full.decode.slice(0, 4),
      prefill: full.prefill.slice(0, 2),
    };
    writeFileSync(join(dir, 'result.json'), JSON.stringify(cut));
    return dir;
  }

  it('--resume RUN_DIR plans the cells still to measure, with the run stored settings', async () => {
    const dir = partialRun();
    const r = await runCliInProcess(['plan', '--resume', dir]);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split('\n');
    expect(rows).toContain('prefill at 1K (done), 4K (done), 16K, 32K');
    // 4 x (4K + 64) and 1 x (16K + 64) fit 60,000 tokens; 16 x (4K + 64) = 66,560 and 4 x (16K + 64) do not.
    expect(
      rows.filter((l) => /^(1K|4K|16K)\s/.test(l)).map((l) => l.split(/\s+/).slice(1).join(' ')),
    ).toEqual(['done done done', 'done run over', 'run over over']);
    expect(r.stdout).toContain(
      '9 cells: 6 to measure, 4 of them measured already, 3 skipped as Over capacity',
    );
    const j = JSON.parse((await runCliInProcess(['plan', '--resume', dir, '--json'])).stdout) as {
      estimate: { steps: { kind: string; contextTokens: number; concurrency?: number }[] };
    };
    // what is left to send, in the run's order (Over capacity cells cost nothing)
    expect(
      j.estimate.steps.map((s) => `${s.kind} ${s.contextTokens}${s.concurrency ? `x${s.concurrency}` : ''}`),
    ).toEqual(['connect 1024', 'cell 4096x4', 'prefill 16384', 'cell 16384x1', 'prefill 32512']);
  });
});
