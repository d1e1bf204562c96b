import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareModel } from '../../src/report/compare-model.js';
import { loadResult } from '../../src/results/read.js';
import { parseResult } from '../../src/results/schema.js';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runCliInProcess } from '../helpers/cli.js';

// `quick` against the demo's sim records the hardware `demo` records (the profile's, marked simulated), where it
// recorded none ("Simulated (no real GPU)", GPU "—") and `compare` listed four hardware differences between a
// demo run and a quick run of the same sim.
let sim: SimHandle;
beforeAll(async () => {
  sim = await startSim({ profile: 'demo', port: 0 });
});
afterAll(async () => {
  await sim.close();
});

describe('quick against the sim', () => {
  it("records the sim profile's hardware, as demo does: compare lists no hardware difference", async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-quick-hw-'));
    const r = await runCliInProcess(['quick', '--base-url', sim.baseUrl, '--budget', '5', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const report = /Full report: (.*)$/m.exec(r.stdout)![1]!;
    const quick = loadResult(join(report, '..'));
    // demo-busy.json: a real `demo` run's result.
    const demo = parseResult(
      JSON.parse(readFileSync(new URL('../fixtures/results/demo-busy.json', import.meta.url), 'utf8')),
    );
    expect(quick.hardware).toEqual(demo.hardware);
    expect(quick.hardware).toEqual({
      type: 'Simulated (sim profile "demo", no real GPU)',
      gpuName: 'Simulated GPU',
      gpuCount: 1,
      gpuMemoryGb: 24,
      gpuMemoryGbTotal: 24,
      source: 'sim',
    });
    const diffs = compareModel([demo, quick]).metaDiffs.map((d) => d.field);
    expect(diffs.filter((f) => f.startsWith('Hardware'))).toEqual([]);
  });
});
