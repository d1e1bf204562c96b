import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/web/app.js';
import { RunIndex, type RunIndexOptions } from '../../src/web/run-index.js';
import { allowedHosts } from '../../src/web/server.js';
import { closedOnlyResult, levelsResult } from '../helpers/level-results.js';
import { writeRun } from './fake-runs.js';

// serve with load levels (docs/serve.md): the run list's answer names the highest rate per row beside the users at
// once, the run page is the HTML report with its levels section, both judged under serve --slo or the page's ?slo=.
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'serve-levels-'));
  writeRun(root, 'rates', levelsResult());
  writeRun(root, 'closed', closedOnlyResult());
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function get(path: string, o: Partial<RunIndexOptions> = {}): Promise<string> {
  const index = new RunIndex({ roots: [root], refreshEveryMs: 0, ...o });
  const app = createApp({
    index,
    roots: [root],
    allowedHosts: allowedHosts('127.0.0.1'),
    ...(o.slo ? { slo: o.slo } : {}),
  });
  const res = await app.fetch(
    new Request(`http://127.0.0.1:8321${path}`, { headers: { host: '127.0.0.1:8321' } }),
  );
  return res.text();
}

const answers = (html: string) =>
  new Map(
    [
      ...html.matchAll(
        /data-run="([^"]+)">[\s\S]*?<td class="answer" data-label="([^"]*)"[^>]*>([\s\S]*?)<\/td>/g,
      ),
    ].map(([, id, label, cell]) => [
      id!,
      `${label}: ${cell!
        .replace(/<[^>]+>/g, '|')
        .replace(/\|+/g, '|')
        .replace(/^\||\|$/g, '')}`,
    ]),
  );

describe('serve with load levels', () => {
  it("the run list gives each row's highest rate beside the users at once", async () => {
    const html = await get('/');
    expect(html).toContain('>Users at once · req/s</th>');
    const rows = answers(html);
    expect(rows.get('rates')).toBe(
      'Users at once · req/s: 8K: |4 users|8K: |2 req/s|shared-prefix: |3.08 req/s',
    );
    expect(rows.get('closed')).toBe('Users at once: 8K: |4 users');
    expect(html).toContain('title="shared-prefix:prefixes=4,prefix=2K,suffix=256"');
  });

  it('serve --slo judges the levels again from their stored requests', async () => {
    // Within 500 ms: 3 req/s (first tokens at 700 ms) fails, 2 req/s (450 ms) still meets it; 3.08 req/s (520 ms)
    // fails, 2.83 req/s (380 ms) meets it.
    const rows = answers(await get('/', { slo: { ttftMs: 500, share: 0.9 } }));
    expect(rows.get('rates')).toBe(
      'Users at once · req/s: 8K: |4 users|8K: |2 req/s|shared-prefix: |2.83 req/s',
    );
  });

  it('the run page is the report with its levels; ?slo= judges it again', async () => {
    const html = await get('/report?run=rates');
    expect(html).toContain('<section class="card " id="levels">');
    expect(html).toContain('<strong>3.08 req/s (3.36 fails; 8 req/s client-bound)</strong>');
    const strict = await get('/report?run=rates&slo=ttft%3D500ms');
    expect(strict).toContain('<strong>2.83 req/s (3.08 fails; 8 req/s client-bound)</strong>');
    expect(await get('/report?run=closed')).not.toContain('id="levels"');
  });
});
