import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { tempDir } from '../integration/run-helpers.js';

const golden = readFileSync(new URL('../fixtures/golden/virtual-run.json', import.meta.url), 'utf8');

// `run --out X` writes X/<runId>/result.json: X holds one run.
function outFolder(...runIds: string[]): string {
  const out = tempDir('out');
  for (const id of runIds) {
    mkdirSync(join(out, id));
    writeFileSync(join(out, id, 'result.json'), golden.replace(/"runId": "[^"]+"/, `"runId": "${id}"`));
  }
  return out;
}

// report, compare, fit and predict take the folder `run --out` was given when it holds one run.
describe('a folder holding one run', () => {
  it('report reads it and says which run it took', async () => {
    const out = outFolder('20260101-000000-aaaa');
    const r = await runCliInProcess(['report', out, '--format', 'md']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `reading ${join(out, '20260101-000000-aaaa', 'result.json')}: the one run in ${out}\n`,
    );
    const direct = await runCliInProcess(['report', join(out, '20260101-000000-aaaa'), '--format', 'md']);
    expect(r.stdout).toBe(direct.stdout);
    expect(direct.stderr).toBe('');
  });

  it('compare and fit read such folders; predict takes a folder holding one twin file', async () => {
    const [a, b] = [outFolder('a1'), outFolder('b1')];
    const c = await runCliInProcess(['compare', a, b, '--format', 'md']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stderr.split('\n').filter(Boolean)).toHaveLength(2);
    const twinDir = tempDir('twin');
    const f = await runCliInProcess(['fit', a, '-o', join(twinDir, 'twin.yaml')]);
    expect(f.code, f.stderr).toBe(0);
    expect(f.stderr).toContain(`the one run in ${a}`);
    const p = await runCliInProcess(['predict', '--twin', twinDir, '--out', join(twinDir, 'predicted')]);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stderr).toContain(`reading ${join(twinDir, 'twin.yaml')}: the one twin file in ${twinDir}`);
  });

  it('refuses a folder of several runs with their list, and one of none', async () => {
    const out = outFolder('20260101-000000-aaaa', '20260102-000000-bbbb');
    const r = await runCliInProcess(['report', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error [USAGE]: ${out} holds 2 runs; say which. Pass one of them: ${join(out, '20260101-000000-aaaa')}, ${join(out, '20260102-000000-bbbb')}.\n`,
    );
    // More than five: the newest five, and how many older ones were left out.
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((x, i) => `2026010${i + 1}-000000-${x}`);
    const many = await runCliInProcess(['report', outFolder(...ids)]);
    expect(many.stderr).toMatch(
      /holds 7 runs; say which\. Pass one of them: .*-c, .*-g \(and 2 older\)\.\n$/,
    );
    expect(many.stderr).not.toContain('-a,');
    const empty = await runCliInProcess(['fit', tempDir('empty'), '-o', join(tempDir('twin'), 't.yaml')]);
    expect(empty.code).toBe(8);
    expect(empty.stderr).toMatch(/holds no result\.json, and no run folder that does\. Pass a run folder/);
  });
});

// A path that is not there is worded alike by every command that reads one.
describe('a missing path', () => {
  it('reads the same in report, compare, fit, import, share, serve and run --resume', async () => {
    const gone = join(tempDir('gone'), 'not-here');
    const line = `cannot read ${gone}: no such file or folder. Check the path.\n`;
    for (const argv of [
      ['report', gone],
      ['compare', gone, gone],
      ['fit', gone, '-o', join(tempDir('twin'), 't.yaml')],
      ['import', gone, '-o', join(tempDir('imp'), 'r.json')],
      ['share', gone],
    ]) {
      const r = await runCliInProcess(argv);
      expect(r.stderr, argv[0]).toBe(`error [RESULT_INVALID]: ${line}`);
      expect(r.code).toBe(8);
    }
    const serve = await runCliInProcess(['serve', gone]);
    expect(serve.stderr).toMatch(
      new RegExp(`^error \\[USAGE\\]: cannot read ${gone}: no such file or folder\\. Pass the folders`),
    );
    const resume = await runCliInProcess(['run', '--resume', gone]);
    expect(resume.stderr).toBe(
      `error [USAGE]: nothing to resume in ${gone}: no such file or folder. Check the path.\n`,
    );
  });
});
