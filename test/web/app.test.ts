import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, hostName } from '../../src/web/app.js';
import { RunIndex } from '../../src/web/run-index.js';
import { allowedHosts, isLoopback } from '../../src/web/server.js';
import { fakeRun, writeRun } from './fake-runs.js';

// The app is a Request → Response handler: these tests call it in-process, no socket.
const HOSTILE = '<img src=x onerror=alert(1)>';
let root: string;
let app: ReturnType<typeof createApp>;

const get = (path: string, host = '127.0.0.1:8321') =>
  app.fetch(new Request(`http://${host}${path}`, { headers: { host } }));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'serve-app-'));
  writeRun(root, 'old', fakeRun(1, { startedAt: '2026-11-01T00:00:00Z', speed: 1, intervals: true }));
  writeRun(root, 'new', fakeRun(2, { startedAt: '2026-12-01T00:00:00Z', speed: 1.5, intervals: true }));
  writeRun(
    root,
    `evil-${HOSTILE}`,
    fakeRun(3, {
      model: HOSTILE,
      launchCommand: `vllm serve "${HOSTILE}"`,
      startedAt: '2026-11-15T00:00:00Z',
    }),
  );
  const index = new RunIndex({ roots: [root], refreshEveryMs: 0 });
  await index.refresh();
  app = createApp({ index, roots: [root], allowedHosts: allowedHosts('127.0.0.1') });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('results browser app', () => {
  it('refuses a Host it does not listen on (DNS rebinding) and accepts loopback names', async () => {
    expect((await get('/', 'attacker.example:8321')).status).toBe(403);
    expect((await get('/', 'localhost:8321')).status).toBe(200);
    expect((await get('/', '[::1]:8321')).status).toBe(200);
    expect(hostName('[::1]:80')).toBe('[::1]');
    expect(hostName('LocalHost')).toBe('localhost');
    expect(isLoopback('127.0.0.2')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
    expect(allowedHosts('0.0.0.0')).toBeUndefined();
  });

  it('lists runs with a CSP that allows nothing from elsewhere, and escapes names from the files', async () => {
    const res = await get('/');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await res.text();
    // A browser ignores frame-ancestors in a <meta> CSP and logs an error on every page: the header carries it.
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)![1]!;
    expect(meta).toContain("form-action 'self'");
    expect(meta).not.toContain('frame-ancestors');
    expect(html).toContain('3 of 3 runs');
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // The folder name reaches the URL encoded.
    expect(html).toContain(`/report?${new URLSearchParams([['run', `evil-${HOSTILE}`]]).toString()}`);
    const api = (await (await get('/api/runs?model=sim-model')).json()) as {
      count: number;
      runs: Array<{ id: string }>;
    };
    expect(api.runs.map((r) => r.id)).toEqual(['new', 'old']);
  });

  it('opens a report, compares with the oldest run as A, and 404s a run that is not there', async () => {
    const report = await (await get(`/report?run=${encodeURIComponent(`evil-${HOSTILE}`)}`)).text();
    expect(report).not.toContain(HOSTILE);
    expect(report).toContain('vllm serve &quot;&lt;img src=x onerror=alert(1)&gt;&quot;');
    const cmp = await (await get('/compare?run=new&run=old')).text();
    // 8K × 4 is 1.5× faster in the newer run: the ratio B/A shows it.
    const ratio = (html: string) =>
      Number(/data-context="8192" data-concurrency="4" data-ratio="([\d.]+)"/.exec(html)?.[1]);
    expect(ratio(cmp)).toBeCloseTo(1.5, 2);
    expect(ratio(await (await get('/compare?run=new&run=old&base=new')).text())).toBeCloseTo(1 / 1.5, 2);
    expect((await get('/compare?run=old')).status).toBe(400);
    expect((await get('/report?run=gone')).status).toBe(404);
    expect((await get('/nowhere')).status).toBe(404);
  });

  it('history: a point per run with its interval; one run redirects to its model, engine and GPU', async () => {
    const html = await (await get('/history?cell=8192x4&figure=totalTokensPerS&model=sim-model')).text();
    const old = fakeRun(1, { speed: 1 }).decode.find(
      (c) => c.contextTokens === 8192 && c.concurrency === 4,
    )!.totalTokensPerS!;
    expect(html).toContain(
      `data-point="old" data-value="${old}" data-lo="${old * 0.96}" data-hi="${old * 1.04}"`,
    );
    expect(html.match(/data-point="new"/g)).toHaveLength(2); // wide and narrow charts
    const one = await get('/history?run=old&cell=p4096');
    expect(one.status).toBe(302);
    expect(one.headers.get('location')).toBe(
      '/history?model=sim-model&engine=sim-vllm&gpu=Sim+GPU&cell=p4096&figure=tokensPerS',
    );
    expect((await get('/history?cell=bogus')).status).toBe(400);
  });
});
