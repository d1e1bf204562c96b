import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextLabel, fmtTokS } from '../../src/format/index.js';
import { createApp } from '../../src/web/app.js';
import { RunIndex } from '../../src/web/run-index.js';
import { allowedHosts } from '../../src/web/server.js';
import { fakeRun, writeRun } from './fake-runs.js';

// The review: the report's card said "Peak throughput 8,827.0 tok/s · Valid cells only" while the list showed
// "Peak total 25.6K" for the same run (a Requests queued cell). Both now say the same figure and cell.
let root: string;
let app: ReturnType<typeof createApp>;
const get = async (path: string) =>
  (
    await app.fetch(new Request(`http://127.0.0.1:8321${path}`, { headers: { host: '127.0.0.1:8321' } }))
  ).text();
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

const mixed = fakeRun(1, { speed: 1 });
const queuedOnly = fakeRun(2, { speed: 1.3 });
for (const c of queuedOnly.decode) if (c.status === 'Valid') c.status = 'Requests queued';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'serve-peak-'));
  writeRun(root, 'mixed', mixed);
  writeRun(root, 'queued-only', queuedOnly);
  const index = new RunIndex({ roots: [root], refreshEveryMs: 0 });
  await index.refresh();
  app = createApp({ index, roots: [root], allowedHosts: allowedHosts('127.0.0.1') });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const listPeak = (list: string, id: string) => {
  const row = new RegExp(`<tr [^>]*data-run="${id}"[\\s\\S]*?</tr>`).exec(list)![0];
  return text(/<td class="num" data-label="Peak">([\s\S]*?)<\/td>/.exec(row)![1]!).trim();
};
const cardPeak = (report: string) =>
  text(/<div class="k">Peak throughput<\/div>([\s\S]*?)<\/div><\/div>/.exec(report)![1]!).trim();

describe('peak throughput: the list says what the report card says', () => {
  it('takes the best Valid cell, not a faster Requests queued one, in both', async () => {
    const valid = mixed.decode.filter((c) => c.status === 'Valid');
    const best = valid.reduce((a, c) => (c.totalTokensPerS! > a.totalTokensPerS! ? c : a));
    const anyStatus = Math.max(...mixed.decode.map((c) => c.totalTokensPerS ?? 0));
    expect(anyStatus).toBeGreaterThan(best.totalTokensPerS!); // the queued 16-user cells are faster
    const list = await get('/');
    const card = cardPeak(await get('/report?run=mixed'));
    const figure = `${fmtTokS(best.totalTokensPerS)} tok/s`;
    const at = `${contextLabel(best.contextTokens)} × ${best.concurrency}`;
    expect(listPeak(list, 'mixed')).toBe(`${figure} ${at}`);
    expect(card).toContain(fmtTokS(best.totalTokensPerS));
    expect(card).toContain(at);
    expect(card).toContain('Valid cells only');
    expect(list).not.toContain(fmtTokS(anyStatus));
  });

  it('names the status where a run has no Valid cell', async () => {
    const best = queuedOnly.decode.reduce((a, c) =>
      (c.totalTokensPerS ?? 0) > (a.totalTokensPerS ?? 0) ? c : a,
    );
    const where = `${contextLabel(best.contextTokens)} × ${best.concurrency} · Requests queued: no Valid cell`;
    expect(listPeak(await get('/'), 'queued-only')).toBe(`${fmtTokS(best.totalTokensPerS)} tok/s ${where}`);
    const card = cardPeak(await get('/report?run=queued-only'));
    expect(card).toContain(fmtTokS(best.totalTokensPerS));
    expect(card).toContain(where);
    expect(card).not.toContain('Valid cells only');
  });
});
