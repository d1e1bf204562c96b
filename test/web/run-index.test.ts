import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { facetCounts, filterParams, filterRuns, parseFilter } from '../../src/web/filter.js';
import { cellChoices, historyPoints, parseCellRef } from '../../src/web/history.js';
import { RunIndex } from '../../src/web/run-index.js';
import { fakeRun, writeRun } from './fake-runs.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'serve-index-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function sixRuns(root: string) {
  writeRun(
    root,
    'a/run-1',
    fakeRun(1, {
      model: 'llama',
      engine: 'vllm',
      version: '0.9.0',
      gpu: 'H200',
      startedAt: '2026-11-01T10:00:00Z',
    }),
  );
  writeRun(
    root,
    'a/run-2',
    fakeRun(2, {
      model: 'llama',
      engine: 'vllm',
      version: '0.10.0',
      gpu: 'H200',
      startedAt: '2026-11-15T10:00:00Z',
      intervals: true,
    }),
  );
  writeRun(
    root,
    'b/run-3',
    fakeRun(3, {
      model: 'llama',
      engine: 'sglang',
      version: '0.5',
      gpu: 'H200',
      startedAt: '2026-11-20T10:00:00Z',
    }),
  );
  writeRun(
    root,
    'b/run-4',
    fakeRun(4, {
      model: 'qwen',
      engine: 'vllm',
      version: '0.10.0',
      gpu: 'RTX 6000',
      startedAt: '2026-12-01T10:00:00Z',
      status: 'interrupted',
    }),
  );
  writeRun(
    root,
    'run-5',
    fakeRun(5, {
      model: 'qwen',
      engine: 'vllm',
      version: '0.10.0',
      gpu: 'RTX 6000',
      startedAt: '2026-12-02T10:00:00Z',
    }),
  );
  writeRun(
    root,
    'deep/x/y/run-6',
    fakeRun(6, {
      model: 'llama',
      engine: 'vllm',
      version: '0.10.0',
      gpu: 'H200',
      startedAt: '2026-12-03T10:00:00Z',
      intervals: true,
    }),
  );
}

describe('run index', () => {
  it('finds every result.json below the roots, newest first, with ids from the folders', async () => {
    const root = tmp();
    sixRuns(root);
    writeFileSync(join(root, 'a', 'notes.txt'), 'not a result');
    const index = new RunIndex({ roots: [root] });
    const runs = await index.runs();
    expect(runs.map((r) => r.id)).toEqual([
      'deep/x/y/run-6',
      'run-5',
      'b/run-4',
      'b/run-3',
      'a/run-2',
      'a/run-1',
    ]);
    const r2 = runs.find((r) => r.id === 'a/run-2')!;
    expect(r2).toMatchObject({
      model: 'llama',
      engine: 'vllm',
      engineVersion: '0.10.0',
      gpu: 'H200',
      status: 'complete',
    });
    // 4 contexts × 4 levels; N × (C + 512) > 100K is over capacity: 16 × 8192 and 16 × 4096... counted from the file.
    const r = fakeRun(2);
    expect(r2.counts.over).toBe(r.decode.filter((c) => c.status === 'Over capacity').length);
    expect(r2.counts.valid + r2.counts.queued + r2.counts.over + r2.counts.failed).toBe(16);
    // The report card's peak: the best Valid cell, not a faster Requests queued one (16 users here).
    const valid = r.decode.filter((c) => c.status === 'Valid');
    const best = valid.reduce((a, c) => (c.totalTokensPerS! > a.totalTokensPerS! ? c : a));
    expect(r2.peak).toEqual({
      tokensPerS: best.totalTokensPerS,
      contextTokens: best.contextTokens,
      concurrency: best.concurrency,
      status: 'Valid',
    });
    expect(Math.max(...r.decode.map((c) => c.totalTokensPerS ?? 0))).toBeGreaterThan(best.totalTokensPerS!);
    expect(r2.decode['8192x4']!.iv!.totalTokensPerS).toEqual([
      r2.decode['8192x4']!.totalTokensPerS! * 0.96,
      r2.decode['8192x4']!.totalTokensPerS! * 1.04,
    ]);
    expect(runs.find((e) => e.id === 'a/run-1')!.decode['8192x4']!.iv).toBeUndefined();
  });

  it('several roots: ids carry the root number; a broken file is a problem, not a crash', async () => {
    const a = tmp();
    const b = tmp();
    writeRun(a, 'r', fakeRun(1));
    writeRun(b, 'r', fakeRun(2));
    writeRun(b, 'broken', fakeRun(3));
    writeFileSync(join(b, 'broken', 'result.json'), '{"schema": "llm-inference-bench/result", "ver');
    const index = new RunIndex({ roots: [a, b] });
    expect((await index.runs()).map((r) => r.id).sort()).toEqual(['1/r', '2/r']);
    expect(index.problems()).toHaveLength(1);
    expect(index.problems()[0]!.message).toContain(join(b, 'broken', 'result.json'));
  });

  it('picks up new, changed and removed runs on the next listing, without a restart', async () => {
    const root = tmp();
    writeRun(root, 'one', fakeRun(1));
    let t = 0;
    const index = new RunIndex({ roots: [root], now: () => t, refreshEveryMs: 1000 });
    expect(await index.runs()).toHaveLength(1);
    writeRun(root, 'two', fakeRun(2));
    t = 500; // within the refresh interval: the last walk is reused
    expect(await index.runs()).toHaveLength(1);
    t = 1500;
    // Past the interval a listing answers from memory at once and walks in the background.
    expect(await index.runs()).toHaveLength(1);
    await index.refresh(); // joins the walk in progress
    expect((await index.runs()).map((r) => r.id)).toEqual(['two', 'one']);
    const file = writeRun(root, 'one', fakeRun(1, { title: 'renamed run' }));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    rmSync(join(root, 'two'), { recursive: true });
    expect(await index.refresh()).toEqual({ added: 0, changed: 1, removed: 1 });
    expect((await index.runs()).map((r) => r.title)).toEqual(['renamed run']);
  });

  it('the cache file spares reading unchanged results after a restart, and is ignored when stale', async () => {
    const root = tmp();
    const cacheFile = join(tmp(), 'index.json');
    const file = writeRun(root, 'one', fakeRun(1));
    await new RunIndex({ roots: [root], cacheFile }).refresh();
    const cache = JSON.parse(readFileSync(cacheFile, 'utf8')) as { entries: Array<{ title: string }> };
    expect(cache.entries).toHaveLength(1);
    // A cache entry that matches the file's mtime and size is trusted as is: the title proves it was not re-read.
    cache.entries[0]!.title = 'from the cache';
    writeFileSync(cacheFile, JSON.stringify(cache));
    expect((await new RunIndex({ roots: [root], cacheFile }).runs())[0]!.title).toBe('from the cache');
    // The file changes: read again.
    const st = statSync(file);
    utimesSync(file, st.atime, new Date(st.mtimeMs + 10_000));
    expect((await new RunIndex({ roots: [root], cacheFile }).runs())[0]!.title).toBe('sim-model run 1');
    writeFileSync(cacheFile, 'not json');
    expect(await new RunIndex({ roots: [root], cacheFile }).runs()).toHaveLength(1);
  });
});

describe('filters', () => {
  it('by model, engine, version, GPU, status, dates and words; back to the same URL', async () => {
    const root = tmp();
    sixRuns(root);
    const runs = await new RunIndex({ roots: [root] }).runs();
    const ids = (q: string) => filterRuns(runs, parseFilter(new URLSearchParams(q))).map((r) => r.id);
    expect(ids('model=qwen')).toEqual(['run-5', 'b/run-4']);
    expect(ids('model=llama&engine=vllm&version=0.10.0')).toEqual(['deep/x/y/run-6', 'a/run-2']);
    expect(ids('gpu=RTX+6000&status=interrupted')).toEqual(['b/run-4']);
    expect(ids('from=2026-11-15&to=2026-12-01')).toEqual(['b/run-4', 'b/run-3', 'a/run-2']);
    expect(ids('q=SGLANG')).toEqual(['b/run-3']);
    expect(ids('q=llama+deep')).toEqual(['deep/x/y/run-6']);
    expect(ids('from=yesterday')).toHaveLength(6); // a malformed date is dropped, not "match nothing"
    expect(ids('model=nobody')).toEqual([]);
    const f = parseFilter(new URLSearchParams('model=llama&gpu=H200&from=2026-11-02&page=3&junk=1'));
    expect(filterParams(f).toString()).toBe('model=llama&gpu=H200&from=2026-11-02');
    const facets = facetCounts(runs);
    expect(facets.model).toEqual([
      ['llama', 4],
      ['qwen', 2],
    ]);
    expect(facets.version.map(([v]) => v)).toEqual(['0.5', '0.9.0', '0.10.0']);
  });
});

describe('history', () => {
  it('one cell across runs, oldest first, with intervals where the result has them', async () => {
    const root = tmp();
    sixRuns(root);
    const runs = filterRuns(await new RunIndex({ roots: [root] }).runs(), { model: 'llama' });
    const cell = parseCellRef('8192x4')!;
    const pts = historyPoints(runs, cell, 'totalTokensPerS');
    expect(pts.map((p) => p.run.id)).toEqual(['a/run-1', 'a/run-2', 'b/run-3', 'deep/x/y/run-6']);
    expect(pts.map((p) => p.value)).toEqual(
      [1, 2, 3, 6].map(
        (i) =>
          fakeRun(i).decode.find((c) => c.contextTokens === 8192 && c.concurrency === 4)!.totalTokensPerS,
      ),
    );
    expect(pts.map((p) => !!p.interval)).toEqual([false, true, false, true]);
    // An over-capacity cell is no point; a prefill point's interval comes from its repeats.
    expect(
      historyPoints(runs, parseCellRef('8192x16')!, 'totalTokensPerS').every((p) => p.value === null),
    ).toBe(true);
    const pre = historyPoints(runs, parseCellRef('p4096')!, 'tokensPerS');
    expect(pre[0]!.interval![0]).toBeLessThan(pre[0]!.value!);
    expect(pre[0]!.interval![1]).toBeGreaterThan(pre[0]!.value!);
    expect(parseCellRef('8192')).toBeUndefined();
    expect(cellChoices(runs).slice(0, 2)).toEqual([
      ['1024x1', '1K × 1'],
      ['1024x4', '1K × 4'],
    ]);
    expect(cellChoices(runs).at(-1)).toEqual(['p32512', 'prefill 32K']);
  });
});
