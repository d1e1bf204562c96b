import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { optionsFor } from '../../src/config/options.js';
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

  it('accepts flags that cannot change the plan and names them in one line; the plan stays the same', async () => {
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
      'note: --out, --workers, --http-client, --title do not change the plan (they matter when the run measures)\n',
    );
    expect(bare.stderr).toBe('');
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
    ).toEqual([
      'connect 1024',
      'cell 4096x4',
      'prefill 16384',
      'cell 16384x1',
      'prefill 32512',
    ]);
  });
});
