import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimHandle } from '../../src/sim/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { fastFlags, startTestSim, tempDir } from '../integration/run-helpers.js';

// How a run ends where something stops it short: what it measured still reaches the terminal, and --resume names
// only the runs it can continue.

let sim: SimHandle; // a 16K-token model
beforeAll(async () => {
  sim = await startTestSim({ overrides: { maxModelLen: 16_384 } });
});
afterAll(async () => sim.close());

describe('run --contexts with a context the server cannot take', () => {
  it('prints the answer for what it measured and the report paths, then the error, exit 6', async () => {
    const out = tempDir('too-long');
    const r = await runCliInProcess([
      'run',
      ...fastFlags(sim.baseUrl, out),
      '--contexts',
      '4K,32K',
      '--concurrency',
      '1,2',
      '--max-output',
      '64',
      '--prefill-repeats',
      '1',
      '--run-id',
      'part',
    ]);
    expect(r.code).toBe(6);
    const dir = join(out, 'part');
    // the answer of the 4K cells measured (docs/report.md "The answer"), the result and both reports
    expect(r.stdout).toMatch(/^The answer/m);
    expect(r.stdout).toMatch(/^ {2}4K {2}/m);
    expect(r.stdout).toContain(`result: ${join(dir, 'result.json')}\n`);
    expect(r.stdout).toContain(`report: ${join(dir, 'report.html')}\n`);
    expect(r.stdout).toContain(`report: ${join(dir, 'report.md')}\n`);
    // the run's closing error line stays, last, on stderr
    expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^error \[CONTEXT_TOO_LONG\]: --contexts 32K exceeds the server's max model length 16,384/,
    );
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { status: string };
    expect(result.status).toBe('complete');
  });
});
