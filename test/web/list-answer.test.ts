import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResult, type RunResult, type ServiceLevel } from '../../src/results/schema.js';
import { parseServiceLevel } from '../../src/stats/slo.js';
import { createApp } from '../../src/web/app.js';
import { RunIndex } from '../../src/web/run-index.js';
import { allowedHosts } from '../../src/web/server.js';
import { writeRun } from './fake-runs.js';

// The run list leads with the answer (users at once per context under the service level), as every report
// does, where it showed only the peak tok/s; the peak stays beside it. Two real demo runs: 8 users at 1K-4K and
// 4 at 8K under the default chat level (the demo prints the same); at ttft=50ms the second reads 4, 8, 8, 1.
const fixture = (name: string): RunResult =>
  parseResult(JSON.parse(readFileSync(new URL(`../fixtures/results/${name}`, import.meta.url), 'utf8')));
const level = (s: string) => parseServiceLevel(s) as ServiceLevel;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'serve-answer-'));
  writeRun(root, 'demo/busy', fixture('demo-busy.json'));
  writeRun(root, 'demo/second', fixture('demo-second.json'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function list(index: RunIndex): Promise<Map<string, { answer: string; title: string; peak: string }>> {
  const app = createApp({ index, roots: [root], allowedHosts: allowedHosts('127.0.0.1') });
  const html = await (
    await app.fetch(new Request('http://127.0.0.1:8321/', { headers: { host: '127.0.0.1:8321' } }))
  ).text();
  const rows = [...html.matchAll(/<tr class="st-[^"]*" data-run="([^"]+)">([\s\S]*?)<\/tr>/g)];
  const text = (h: string) =>
    h
      .replace(/<[^>]+>/g, '|')
      .replace(/\|+/g, '|')
      .replace(/^\||\|$/g, '');
  return new Map(
    rows.map(([, id, tr]) => {
      const a = /<td class="answer" data-label="Users at once" title="([^"]*)">([\s\S]*?)<\/td>/.exec(tr!)!;
      const peak = /<td class="num" data-label="Peak">([\s\S]*?)<\/td>/.exec(tr!)!;
      return [id!, { title: a[1]!, answer: text(a[2]!), peak: text(peak[1]!) }];
    }),
  );
}

describe("serve's run list: the answer first, the peak beside it", () => {
  it('each run shows its users at once per context, contexts with the same answer on one line', async () => {
    const rows = await list(new RunIndex({ roots: [root], refreshEveryMs: 0 }));
    for (const id of ['demo/busy', 'demo/second']) {
      expect(rows.get(id)!.answer).toBe('1K–4K: |8 users|8K: |4 users');
      expect(rows.get(id)!.title).toBe(
        'Users at once under chat (first token within 2 s and at least 20 tok/s each, for 90% of requests)',
      );
    }
    expect(rows.get('demo/second')!.peak).toBe('1,776.3 tok/s|2K × 8');
  });

  it('serve --slo judges every run by its level; a cache written under another level is judged again', async () => {
    const cacheFile = join(mkdtempSync(join(tmpdir(), 'serve-answer-cache-')), 'index.json');
    await new RunIndex({ roots: [root], refreshEveryMs: 0, cacheFile }).refresh();
    const rows = await list(
      new RunIndex({ roots: [root], refreshEveryMs: 0, cacheFile, slo: level('ttft=50ms') }),
    );
    expect(rows.get('demo/second')!.answer).toBe('1K: |4 users|2K–4K: |8 users|8K: |1 user');
    expect(rows.get('demo/second')!.title).toBe(
      'Users at once under first token within 50 ms, for 90% of requests',
    );
    const cache = JSON.parse(readFileSync(cacheFile, 'utf8')) as { slo: string };
    expect(cache.slo).toBe('ttft=50ms,share=90%');
  });
});
