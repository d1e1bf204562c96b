import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseResult } from '../../src/results/schema.js';
import { loadProfile } from '../../src/sim/profiles.js';
import { runCli } from '../helpers/cli.js';
import { demoMeasured } from './helpers.js';

// fit -> twin.yaml (a sim profile) -> predict -> compare beside the measurement, through the real CLI.
describe('fit and predict commands', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llm-bench-twin-'));
  const measured = join(dir, 'measured.json');
  writeFileSync(measured, JSON.stringify(demoMeasured()));
  const twin = join(dir, 'twin.yaml');

  it('fit prints every parameter and a residual per cell, and writes a profile the sim loads', async () => {
    const r = await runCli(['fit', measured, '--cells', '1Kx1,1Kx4,1Kx8,1Kx16,8Kx1,8Kx4,8Kx8', '-o', twin]);
    expect(r.stderr).toContain(`wrote ${twin}`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/max running sequences: 8 \(active 8\.0–8\.0 in queued cells; from 1K × 16\)/);
    expect(r.stdout).toMatch(/KV capacity: 65536 tokens \(reported by the server/);
    expect(r.stdout).toMatch(/^ {2}1K × 16 +Requests queued +same /m);
    expect(r.stdout.match(/^ {2}\d+K × \d+ /gm)).toHaveLength(7);
    expect(loadProfile(twin).maxNumSeqs).toBe(8);
  });

  it('predict writes a predicted result with what-ifs; compare puts it beside the measurement', async () => {
    const out = join(dir, 'pred');
    const r = await runCli([
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
    const cmp = await runCli(['compare', measured, out, '--format', 'md']);
    expect(cmp.code).toBe(0);
    expect(cmp.stdout).toContain('Predicted · sim/demo-7b');
  });

  it('refuses in one line, naming the cells that would pin the parameter', async () => {
    const r = await runCli(['fit', measured, '--cells', '1Kx1,8Kx1', '-o', join(dir, 'no.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^error \[USAGE\]: cannot pin decode step time against batch size: .* e\.g\. 1K × 16\.$/m,
    );
    const bad = await runCli(['predict', '--twin', join(dir, 'missing.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error \[CONFIG_INVALID\]: unknown sim profile/);
  });
});
