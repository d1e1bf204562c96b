import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

const golden = readFileSync(new URL('../fixtures/golden/virtual-run.json', import.meta.url), 'utf8');

// Run folders as `run --out X` leaves them, each with its status.
function outFolder(runs: Record<string, 'complete' | 'interrupted'>): string {
  const out = tempDir('resume-out');
  for (const [id, status] of Object.entries(runs)) {
    mkdirSync(join(out, id));
    const text = golden
      .replace(/"runId": "[^"]+"/, `"runId": "${id}"`)
      .replace(/"status": "complete"/, `"status": "${status}"`);
    writeFileSync(join(out, id, 'result.json'), text);
  }
  return out;
}

describe('run --resume without the run folder', () => {
  it('names only the interrupted runs of the folder', async () => {
    const out = outFolder({
      '20260101-000000-aaaa': 'interrupted',
      '20260102-000000-bbbb': 'complete',
      '20260103-000000-cccc': 'complete',
    });
    const r = await runCliInProcess(['run', '--resume', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error [USAGE]: nothing to resume in ${out}: it holds no result.json. It holds an interrupted run (and 2 ` +
        `complete); resume with \`npx llm-inference-bench run --resume ${join(out, '20260101-000000-aaaa')}\`.\n`,
    );
  });

  it('says there is none to resume where every run is complete', async () => {
    const out = outFolder({ '20260102-000000-bbbb': 'complete', '20260103-000000-cccc': 'complete' });
    const r = await runCliInProcess(['run', '--resume', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error [USAGE]: nothing to resume in ${out}: it holds no result.json. Its 2 runs are all complete: ` +
        'none to resume. Start a new run without --resume.\n',
    );
    expect(r.stderr).not.toContain('run --resume');
  });
});
