import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseResult } from '../../src/results/schema.js';
import { loadProfile } from '../../src/sim/profiles.js';
import { runCliInProcess } from '../helpers/cli.js';
import { demoMeasured } from './helpers.js';

// fit -> twin.yaml (a sim profile) -> predict -> compare beside the measurement, through the real CLI.
describe('fit and predict commands', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llm-bench-twin-'));
  const measured = join(dir, 'measured.json');
  writeFileSync(measured, JSON.stringify(demoMeasured()));
  const twin = join(dir, 'twin.yaml');

  it('fit prints every parameter and a residual per cell, and writes a profile the sim loads', async () => {
    const r = await runCliInProcess([
      'fit',
      measured,
      '--cells',
      '1Kx1,1Kx4,1Kx8,1Kx16,8Kx1,8Kx4,8Kx8',
      '-o',
      twin,
    ]);
    expect(r.stderr).toContain(`wrote ${twin}`);
    expect(r.code).toBe(0);
    // a simulated result keeps no running count: the average active, as the answer reads an imported cell
    expect(r.stdout.replace(/\n +/g, ' ')).toContain(
      'max running sequences: 8 (average active 8.0–8.0 in queued cells (no running count in these results); from 1K × 16)',
    );
    expect(r.stdout).toMatch(/KV capacity: 65,536 tokens \(reported by the server/);
    // measured figures, grouped as the reports print them, and the twin's miss; the twin gave the same status
    expect(r.stdout).toMatch(/^ {2}1K × 16 +queued +[\d,.]+K? +[+-]\d/m);
    expect(r.stdout.match(/^ {2}\d+K × \d+ /gm)).toHaveLength(7);
    expect(r.stdout).not.toContain('* the twin gives another status');
    // at 80 columns, as every text report (characters, not bytes: × is one)
    for (const line of r.stdout.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(loadProfile(twin).maxNumSeqs).toBe(8);
  });

  it('predict writes a predicted result with what-ifs; compare puts it beside the measurement', async () => {
    const out = join(dir, 'pred');
    const r = await runCliInProcess([
      'predict',
      '--twin',
      twin,
      '--out',
      out,
      '--concurrency',
      '1,4,16',
      '--kv-capacity',
      '1.5x',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Speed test matrix · Predicted · sim/demo-7b');
    const p = parseResult(JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')));
    expect(p.predicted?.whatIf).toEqual({ concurrency: [1, 4, 16], kvCapacity: { factor: 1.5 } });
    expect(p.decode.map((c) => c.concurrency)).toEqual([1, 4, 16, 1, 4, 16, 1, 4, 16, 1, 4, 16]);
    const cmp = await runCliInProcess(['compare', measured, out, '--format', 'md']);
    expect(cmp.code).toBe(0);
    expect(cmp.stdout).toContain('Predicted · sim/demo-7b');
  });

  it('reads durations and token counts as run does (the one option table)', async () => {
    const fitted = join(dir, 'twin-3m.yaml');
    const f = await runCliInProcess([
      'fit',
      measured,
      '--kv-capacity',
      '3M',
      '--max-num-seqs',
      '8',
      '-o',
      fitted,
    ]);
    expect(f.code, f.stderr).toBe(0);
    expect(f.stdout).toMatch(/KV capacity: 3,145,728 tokens/);
    const out = join(dir, 'pred-units');
    const whatIfs =
      '--contexts 1K --concurrency 1,4 --duration 2m --max-output 1K --kv-capacity 3M --format md';
    const p = await runCliInProcess(['predict', '--twin', twin, '--out', out, ...whatIfs.split(' ')]);
    expect(p.code, p.stderr).toBe(0);
    const r = parseResult(JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')));
    expect(r.predicted?.whatIf).toEqual({
      contexts: [1024],
      concurrency: [1, 4],
      windowS: 120,
      maxOutput: 1024,
      kvCapacity: { tokens: 3145728 },
    });
    expect(r.config.duration).toBe(120);
    expect(r.config.maxOutput).toBe(1024);
  });

  it.each([
    [
      ['predict', '--twin', 'x.yaml', '--duration', '2x'],
      '--duration: expected a duration like 30, 30s or 2m',
    ],
    [['predict', '--twin', 'x.yaml', '--max-output', 'lots'], '--max-output: expected a token count like 8K'],
    [
      ['predict', '--twin', 'x.yaml', '--kv-capacity', '0x'],
      '--kv-capacity: expected tokens like 3000000 or 3M',
    ],
    [
      ['predict', '--twin', 'x.yaml', '--concurrency', '1,0'],
      '--concurrency: the 2nd value "0": expected a value >= 1',
    ],
    [
      ['fit', 'a.json', '-o', 't.yaml', '--kv-capacity', '1.5x'],
      '--kv-capacity: expected a token count like 8K',
    ],
    [
      ['fit', 'a.json', '-o', 't.yaml', '--cells', '8Kx16,8K'],
      '--cells: the 2nd value "8K": expected a cell like 8Kx16',
    ],
    [['fit', 'a.json', '-o', 't.yaml', '--context-slope', '-1'], '--context-slope: expected a value >= 0'],
  ])('a bad value is one line and exit 2, as in run: %j', async (args, message) => {
    const r = await runCliInProcess(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error \[CONFIG_INVALID\]: invalid options: .*\n$/);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });

  it('keeps --twin and -o required, in one USAGE line', async () => {
    const p = await runCliInProcess(['predict', '--duration', '2m']);
    expect(p.code).toBe(2);
    expect(p.stderr).toBe(
      "error [USAGE]: required option '--twin <file>' not specified. Run `npx llm-inference-bench predict --help` for the options.\n",
    );
    const f = await runCliInProcess(['fit', measured]);
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/^error \[USAGE\]: required option '-o, --output <file>' not specified\./);
  });

  it('refuses in one line, naming the cells that would pin the parameter', async () => {
    const r = await runCliInProcess(['fit', measured, '--cells', '1Kx1,8Kx1', '-o', join(dir, 'no.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^error \[USAGE\]: cannot pin decode step time against batch size: .* e\.g\. 1K × 16\.$/m,
    );
    const bad = await runCliInProcess(['predict', '--twin', join(dir, 'missing.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^error \[CONFIG_INVALID\]: cannot read the profile .*missing\.yaml: no such file/,
    );
  });
  it('refuses the same run given twice (its cells would count twice in every fit)', async () => {
    const seed = 'test/fixtures/seeds/001_e957ef8128caa214.txt';
    const r = await runCliInProcess(['fit', seed, '--twin-cells', seed, '-o', join(dir, 'twice.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error \[USAGE\]: test\/fixtures\/seeds\/001_e957ef8128caa214\.txt and test\/fixtures\/seeds\/001_e957ef8128caa214\.txt are the same run \(imported-[0-9a-f]+\); pass each run once\./,
    );
    expect(r.stderr).toContain('--twin-cells takes no file');
  });

  it('refuses results of two different servers in one line, naming what differs (not a KV contradiction)', async () => {
    // The seeds: GLM-5.3-Flash on 8 RTX PRO 6000, and the dflash2 model on 4 H200, both vLLM.
    const a = 'test/fixtures/seeds/000_9816ff1652ee407d.txt';
    const b = 'test/fixtures/seeds/001_e957ef8128caa214.txt';
    const r = await runCliInProcess(['fit', a, b, '-o', join(dir, 'mixed.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `error [USAGE]: these results are of different servers (model zai-org/GLM-5.3-Flash vs glm-5.3-flash-dflash2, GPU 8 × RTX PRO 6000 Blackwell Server Edition vs 4 × H200 SXM: ${a} vs ${b}); fit one server's runs.`,
    ]);
    expect(existsSync(join(dir, 'mixed.yaml'))).toBe(false);
  });
});
