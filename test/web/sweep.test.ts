import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSweepFile } from '../../src/results/sweep-io.js';
import { SWEEP_SCHEMA_ID, SWEEP_SCHEMA_VERSION, type SweepFile } from '../../src/results/sweep-schema.js';
import { createApp } from '../../src/web/app.js';
import { RunIndex } from '../../src/web/run-index.js';
import { allowedHosts } from '../../src/web/server.js';
import { fakeRun, writeRun } from './fake-runs.js';

// serve lists sweeps and shows a sweep's report, each configuration linked to its run (in-process, no socket).
const HOSTILE = '<img src=x onerror=alert(1)>';
let root: string;
let app: ReturnType<typeof createApp>;
const get = (path: string) =>
  app.fetch(new Request(`http://127.0.0.1:8321${path}`, { headers: { host: '127.0.0.1:8321' } }));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'serve-sweep-'));
  const dir = join(root, 'sweeps', 'sw1');
  writeRun(dir, '01-np=2', fakeRun(1, { speed: 1, intervals: true }));
  writeRun(dir, '02-np=8', fakeRun(2, { speed: 2, intervals: true }));
  const file: SweepFile = {
    schema: SWEEP_SCHEMA_ID,
    version: SWEEP_SCHEMA_VERSION,
    sweepId: 'sw1',
    title: `np ${HOSTILE}`,
    tool: { name: 'llm-inference-bench', version: '0.7.0' },
    status: 'complete',
    startedAt: '2026-12-04T10:00:00.000Z',
    serveCmd: 'llama-server -m m.gguf --port {port}',
    serveParams: '/tmp/p.yaml',
    options: {},
    servers: ['01-np=2', '02-np=8', '03-np=16'].map((key) => ({
      key,
      name: key.slice(3),
      params: {},
      env: {},
      log: `${key}/server.log`,
    })),
    runs: ['01-np=2', '02-np=8', '03-np=16'].map((key, i) => ({
      key,
      name: key.slice(3),
      server: key,
      linked: [],
      status: i === 2 ? 'failed' : 'complete',
      ...(i === 2
        ? { reason: 'the server exited with code 1 before it answered /health or /v1/models' }
        : {}),
    })),
  };
  writeSweepFile(dir, file);
  const index = new RunIndex({ roots: [root], refreshEveryMs: 0 });
  await index.refresh();
  app = createApp({ index, roots: [root], allowedHosts: allowedHosts('127.0.0.1') });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('serve: sweeps', () => {
  it('lists the sweep beside its runs', async () => {
    const html = await (await get('/')).text();
    expect(html).toContain('id="sweeps"');
    expect(html).toContain('href="/sweep?id=sweeps%2Fsw1"');
    expect(html).toContain('2 of 3 complete · 1 failed');
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('2 of 2 runs'); // the runs of the sweep are runs too
  });

  it("shows the sweep's report with the fastest per cell and links to each run", async () => {
    const res = await get('/sweep?id=sweeps%2Fsw1');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('href="/report?run=sweeps%2Fsw1%2F02-np%3D8"');
    // twice the speed with intervals: faster beyond noise in every cell both measured
    expect(html).toMatch(/data-outcome="faster"[^>]*><span class="hm-v">B \+100%/);
    expect(html).toContain('the server exited with code 1 before it answered /health or /v1/models');
    expect(html).not.toContain(HOSTILE);
    // The start time as every other report writes it, not the file's ISO string.
    expect(html.replace(/<[^>]+>/g, '')).toContain('started 2026-12-04 10:00 UTC');
    expect(html).not.toContain('2026-12-04T10:00');
    expect((await get('/report?run=sweeps%2Fsw1%2F02-np%3D8')).status).toBe(200);
    expect((await get('/sweep?id=nope')).status).toBe(404);
  });
});
