import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { warmUpWarnings } from '../../src/bench/warmup.js';
import type { Sent } from '../../src/bench/drive/sender.js';
import { runCliInProcess } from '../helpers/cli.js';
import { SEEDS } from '../report/seeds.js';
import { tempDir } from './run-helpers.js';

const seedTxt = join('test/fixtures/seeds', `${SEEDS[0].id}.txt`);

// Errors say what went wrong in words and what to do next; no errno codes reach users.
describe('errors that say what to do', () => {
  it('import -o into a folder that does not exist yet creates it (the README example)', async () => {
    const out = join(tempDir('imp-'), 'old', 'result.json');
    const r = await runCliInProcess(['import', seedTxt, '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
  });

  it('import prints what the cross-check found, naming the line', async () => {
    const dir = tempDir('imp-');
    const damaged = join(dir, 'damaged.txt');
    writeFileSync(
      damaged,
      readFileSync(seedTxt, 'utf8').replace(
        '| Sustained decode | 8K | 1 | Valid | 108.1 |',
        '| Sustained decode | 8K | 1 | Valid | 208.1 |',
      ),
    );
    const r = await runCliInProcess(['import', damaged, '-o', join(dir, 'r.json')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^warning: line \d+ \(8K × 1\): total tok\/s 208\.1 in All measurements, 108\.1 in the matrix/m,
    );
  });

  it('a folder where a file is expected, and a missing file, are named in words with a next step', async () => {
    const dir = tempDir('imp-');
    const w = await runCliInProcess(['import', seedTxt, '-o', dir]);
    expect(w.code).toBe(10);
    expect(w.stderr).toContain('it is a folder, not a file. Give the path of a file.');
    const m = await runCliInProcess(['import', join(dir, 'nope.txt')]);
    expect(m.stderr).toContain('no such file or folder. Check the path.');
    for (const e of [w.stderr, m.stderr]) expect(e).not.toMatch(/\bE(NOENT|ISDIR|NOTDIR|ACCES|PERM)\b/);
  });

  it('a missing config file says where to look', async () => {
    const r = await runCliInProcess([
      'plan',
      '--config',
      '/nonexistent/bench.yaml',
      '--max-model-len',
      '32768',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no such file or folder. Check the path given to --config');
    expect(r.stderr).not.toContain('ENOENT');
  });

  it('a damaged result.json on --resume says what to do instead', async () => {
    const dir = tempDir('res-');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'result.json'), '{"schema": "llm-inference-bench/result", "prefill": [');
    const r = await runCliInProcess(['run', '--resume', dir]);
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/result\.json is damaged: it is not JSON .*Start a new run/);
  });

  it('a failed warm-up names the HTTP status and the server message', () => {
    const sent = (slot: number, ok: boolean) =>
      ({
        spec: { slot },
        record: ok
          ? { ok: true }
          : { ok: false, error: { kind: 'http_status', status: 503, message: 'Service Unavailable' } },
      }) as unknown as Sent;
    expect(warmUpWarnings('8K x4', [sent(1, true), sent(3, false)])).toEqual([
      'warm-up of 8K x4: slot 3 failed (HTTP 503: Service Unavailable)',
    ]);
  });
});
