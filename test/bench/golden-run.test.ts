import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBenchError } from '../../src/errors.js';
import { runVirtual, virtualSettings } from './virtual-run.js';

// A fixed-seed run of the real runner against the sim in virtual time, compared field by field with a committed
// result.json: a refactor of the runner must leave every figure as it was. Regenerate (and explain the change in
// the commit) with UPDATE_GOLDEN=1.
const FIXTURE = join(import.meta.dirname, '../fixtures/golden/virtual-run.json');
const LOG_FIXTURE = join(import.meta.dirname, '../fixtures/golden/virtual-run-requests.json');

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

describe('golden run (virtual time)', () => {
  it('gives the committed result.json, field by field', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-golden-'));
    // The sim holds 8K tokens while the probe claims 32K: the 16K context is refused at run time (the
    // too-long path), 4K x 16 is over the claimed KV capacity (the capacity rule), the rest is measured.
    const run = await runVirtual(
      virtualSettings(out, { contexts: [1024, 4096, 16384], concurrency: [1, 4, 16] }),
      { sim: { overrides: { maxModelLen: 8192 } }, info: { kvCapacityTokens: 60_000 } },
    );
    expect(isBenchError(run.error) && run.error.code).toBe('CONTEXT_TOO_LONG');
    const got = leaves(run.result);
    const log = logSummary(run.dir);
    if (process.env.UPDATE_GOLDEN === '1' || !existsSync(FIXTURE)) {
      writeFileSync(FIXTURE, `${JSON.stringify(run.result, null, 2)}\n`);
      writeFileSync(LOG_FIXTURE, `${JSON.stringify(log, null, 2)}\n`);
    }
    expect(log).toEqual(JSON.parse(readFileSync(LOG_FIXTURE, 'utf8')));
    const want = leaves(JSON.parse(readFileSync(FIXTURE, 'utf8')));
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    for (const k of Object.keys(want)) expect({ [k]: got[k] }).toEqual({ [k]: want[k] });
    // the scenario covers what it says it does
    const statuses = run.result.decode.map((c) => `${c.contextTokens}x${c.concurrency} ${c.status}`);
    expect(statuses).toContain('4096x16 Over capacity');
    expect(statuses).toContain('16384x1 Failed');
    expect(run.result.decode.filter((c) => c.status === 'Valid').length).toBeGreaterThanOrEqual(4);
  });
});
