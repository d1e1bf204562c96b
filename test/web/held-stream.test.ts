import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/web/app.js';
import { RunIndex } from '../../src/web/run-index.js';
import { allowedHosts } from '../../src/web/server.js';
import { fakeRun, writeRun } from './fake-runs.js';

// serve says which figures a proxy timed (docs/method.md "Streams held back"): in the report it opens, and on
// the history of the timing figures, not on total tok/s.
let root: string;
let app: ReturnType<typeof createApp>;
const get = async (path: string) =>
  (
    await app.fetch(new Request(`http://127.0.0.1:8321${path}`, { headers: { host: '127.0.0.1:8321' } }))
  ).text();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'serve-held-'));
  writeRun(root, 'direct', fakeRun(1, { startedAt: '2026-11-01T00:00:00Z' }));
  const proxied = fakeRun(2, { startedAt: '2026-12-01T00:00:00Z' });
  proxied.decode.find((c) => c.contextTokens === 8192 && c.concurrency === 4)!.streamBatching = {
    batched: true,
    requests: 12,
    eventsPerRead: 11,
    eventsPerStep: 1,
    firstHeldShare: 0.9,
    heldMs: 200,
  };
  writeRun(root, 'proxied', proxied);
  const index = new RunIndex({ roots: [root], refreshEveryMs: 0 });
  await index.refresh();
  app = createApp({ index, roots: [root], allowedHosts: allowedHosts('127.0.0.1') });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('serve: a stream held on the way', () => {
  it('the history of TTFT marks the held run as not the server’s timing; total tok/s does not', async () => {
    const ttft = await get('/history?cell=8192x4&figure=ttftMs&model=sim-model');
    expect(ttft.match(/data-point="proxied"[^>]*data-held="true"/g)).toHaveLength(2); // wide and narrow charts
    expect(ttft).not.toMatch(/data-point="direct"[^>]*data-held/);
    expect(ttft).toContain('<rect x=');
    expect(ttft).toContain('stream held back on the way: not the server&#39;s timing');
    expect(ttft).toContain('a square one a cell whose stream was held back on the way');
    const total = await get('/history?cell=8192x4&figure=totalTokensPerS&model=sim-model');
    expect(total).not.toContain('data-held');
    expect(total).not.toContain('a square one');
  });

  it('the report it opens says it in words', async () => {
    const html = await get('/report?run=proxied');
    expect(html).toContain('data-anomaly="held-stream"');
    expect(html).toContain('something between client and server held the stream back');
  });
});
