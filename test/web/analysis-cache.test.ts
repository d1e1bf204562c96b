import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadResult } from '../../src/results/read.js';
import { parseResult, type RunResult, type ServiceLevel } from '../../src/results/schema.js';
import { parseServiceLevel } from '../../src/stats/slo.js';
import { AnalysisCache } from '../../src/web/analysis-cache.js';
import { createApp } from '../../src/web/app.js';
import { RunIndex } from '../../src/web/run-index.js';
import { writeRun } from './fake-runs.js';

// serve keeps each run's analysis (the answer and the what-if's twin) per file version and service level
// (docs/serve.md "Where the data comes from"): a page asked for again reuses it; a changed file, another level, or one
// pushed out by newer ones is judged again.
const fixture = (name: string): RunResult =>
  parseResult(JSON.parse(readFileSync(new URL(`../fixtures/results/${name}`, import.meta.url), 'utf8')));
const STRICT = parseServiceLevel('ttft=1s,tok/s=30') as ServiceLevel;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'serve-analysis-'));
  writeRun(root, 'seed', fixture('seed-001_e957ef8128caa214.json')); // imported: no twin, so judged at once
  writeRun(root, 'demo', fixture('demo-busy.json'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('AnalysisCache', () => {
  it('one analysis per file version and service level', () => {
    const file = join(root, 'seed', 'result.json');
    const cache = new AnalysisCache();
    const load = () => loadResult(file);
    const first = cache.get(file, load, undefined).analysis;
    expect(cache.get(file, load, undefined).analysis).toBe(first);
    const strict = cache.get(file, load, STRICT).analysis;
    expect(strict).not.toBe(first);
    expect(strict).toMatchObject({ slo: STRICT, sloFrom: 'given' });
    expect(cache.get(file, load, STRICT).analysis).toBe(strict);
    // The file changes (another title, so another size): judged again from what it holds now.
    const r = loadResult(file);
    writeFileSync(file, JSON.stringify({ ...r, title: `${r.title ?? ''} again` }, null, 2));
    const changed = cache.get(file, load, undefined);
    expect(changed.analysis).not.toBe(first);
    expect(changed.result.title).toMatch(/ again$/);
  });

  it('keeps the last used up to its size', () => {
    const file = join(root, 'seed', 'result.json');
    const load = () => loadResult(file);
    const cache = new AnalysisCache(1);
    const own = cache.get(file, load, undefined).analysis;
    cache.get(file, load, STRICT);
    expect(cache.get(file, load, undefined).analysis).not.toBe(own);
  });

  it('the report page of a demo run: its what-if the first time and again, the page the same', async () => {
    const index = new RunIndex({ roots: [root] });
    await index.refresh();
    const app = createApp({ index, roots: [root] });
    const page = async () => (await app.fetch(new Request('http://127.0.0.1/report?run=demo'))).text();
    const first = await page();
    // The demo's 8K: 8 users need 69,632 tokens of KV cache, the server holds 65,536 (docs/report.md "The answer").
    expect(first).toContain(
      '8K with a KV cache of 69,632 tokens (65,536 now): a twin of this run predicts 8 users',
    );
    expect(await page()).toBe(first);
  });
});
