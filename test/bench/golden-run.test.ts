import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBenchError } from '../../src/errors.js';
import type { RunResult } from '../../src/results/schema.js';
import { runVirtual, virtualSettings } from './virtual-run.js';

// A fixed-seed run of the real runner against the sim in virtual time, compared field by field with a committed
// result.json: a refactor of the runner must leave every figure as it was. Regenerate (and explain the change in
// the commit) with UPDATE_GOLDEN=1.
const fixture = (name: string) => join(import.meta.dirname, `../fixtures/golden/${name}.json`);

// requests.jsonl in short: how many requests each (cell key, phase) logged, and how many ended ok.
function logSummary(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = readFileSync(join(dir, 'requests.jsonl'), 'utf8').split('\n').filter(Boolean);
  const counts = new Map<string, [number, number]>();
  for (const l of lines) {
    const r = JSON.parse(l) as { cell: string; phase: string; status: string };
    const c = counts.get(`${r.cell} | ${r.phase}`) ?? [0, 0];
    counts.set(`${r.cell} | ${r.phase}`, [c[0] + 1, c[1] + (r.status === 'ok' ? 1 : 0)]);
  }
  for (const [k, [n, ok]] of [...counts].sort()) out[k] = `${n} sent, ${ok} ok`;
  return out;
}

// path -> leaf value, so a difference names the field that moved.
function leaves(v: unknown, path = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (v !== null && typeof v === 'object') {
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    if (entries.length === 0) out[path] = Array.isArray(v) ? [] : {};
    for (const [k, x] of entries) leaves(x, path ? `${path}.${k}` : k, out);
  } else out[path] = v;
  return out;
}

// Checks one scenario against its fixtures (written only when UPDATE_GOLDEN=1: a missing fixture fails).
function expectGolden(name: string, result: RunResult, dir: string): void {
  const log = logSummary(dir);
  if (process.env.UPDATE_GOLDEN !== '1')
    expect(existsSync(fixture(name)), `missing fixture ${name}; run with UPDATE_GOLDEN=1`).toBe(true);
  else {
    writeFileSync(fixture(name), `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(fixture(`${name}-requests`), `${JSON.stringify(log, null, 2)}\n`);
  }
  expect(log).toEqual(JSON.parse(readFileSync(fixture(`${name}-requests`), 'utf8')));
  const got = leaves(result);
  const want = leaves(JSON.parse(readFileSync(fixture(name), 'utf8')));
  expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
  for (const k of Object.keys(want)) expect({ [k]: got[k] }).toEqual({ [k]: want[k] });
}

const statuses = (r: RunResult) => r.decode.map((c) => `${c.contextTokens}x${c.concurrency} ${c.status}`);

describe('golden run (virtual time)', () => {
  it('matrix: measured, over capacity and too long at prefill', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-golden-'));
    // The sim holds 8K tokens while the probe claims 32K: the 16K context is refused at run time (the
    // too-long path), 4K x 16 is over the claimed KV capacity (the capacity rule), the rest is measured.
    const run = await runVirtual(
      virtualSettings(out, { contexts: [1024, 4096, 16384], concurrency: [1, 4, 16] }),
      { sim: { overrides: { maxModelLen: 8192 } }, info: { maxModelLen: 32_768, kvCapacityTokens: 60_000 } },
    );
    expect(isBenchError(run.error) && run.error.code).toBe('CONTEXT_TOO_LONG');
    expectGolden('virtual-run', run.result, run.dir);
    expect(statuses(run.result)).toContain('4096x16 Over capacity');
    expect(statuses(run.result)).toContain('16384x1 Failed');
    expect(run.result.decode.filter((c) => c.status === 'Valid').length).toBeGreaterThanOrEqual(4);
  });

  it('too long found at the warm-up of a cell (no prefill point for the context)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-golden-'));
    const run = await runVirtual(
      virtualSettings(out, { contexts: [1024, 16384], prefillContexts: [1024], concurrency: [1, 2] }),
      { sim: { overrides: { maxModelLen: 8192 } }, info: { maxModelLen: 32_768 } },
    );
    expect(isBenchError(run.error) && run.error.code).toBe('CONTEXT_TOO_LONG');
    expectGolden('virtual-run-warmup-too-long', run.result, run.dir);
    expect(statuses(run.result)).toEqual([
      '1024x1 Valid',
      '1024x2 Valid',
      '16384x1 Failed',
      '16384x2 Failed',
    ]);
  });
});
