import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/web/app.js';
import { RunIndex } from '../../src/web/run-index.js';
import { allowedHosts } from '../../src/web/server.js';
import { fakeRun, writeRun } from './fake-runs.js';

// serve's report of a run says which cells sent requests again after the server closed a kept-alive connection
// (docs/method.md "Connections"); a run without any says nothing of it.
let root: string;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'serve-resent-'));
  writeRun(root, 'plain', fakeRun(1));
  const run = fakeRun(2);
  const cell = run.decode.find((c) => c.contextTokens === 2048 && c.concurrency === 8)!;
  cell.staleReconnects = 2;
  cell.requestsSent = 31;
  writeRun(root, 'resent', run);
  const index = new RunIndex({ roots: [root], refreshEveryMs: 0 });
  await index.refresh();
  app = createApp({ index, roots: [root], allowedHosts: allowedHosts('127.0.0.1') });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const report = async (run: string) =>
  (
    await app.fetch(
      new Request(`http://127.0.0.1:8321/report?run=${run}`, { headers: { host: '127.0.0.1:8321' } }),
    )
  ).text();

describe('serve: requests sent again on a new connection', () => {
  it('the report it opens says so for that cell, and nothing for a run without', async () => {
    expect(await report('resent')).toContain(
      'Cell 2K × 8: 2 of 31 requests were sent again, on a new connection: the server closed the kept-alive',
    );
    expect(await report('plain')).not.toMatch(/sent again|data-anomaly="resent"/);
  });
});
