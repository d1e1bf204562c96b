import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/web/app.js';
import { runTicks } from '../../src/web/history-chart.js';
import { RunIndex } from '../../src/web/run-index.js';
import { allowedHosts } from '../../src/web/server.js';
import { fakeRun, writeRun } from './fake-runs.js';

// A history's x axis tells its runs apart: runs of one day read as times of day, the day named once on the axis;
// longer spans as dates, finer where two shown runs would read the same.
const wide = (ts: string[]) => runTicks(ts, 200, 96); // room enough for every label

describe('history ticks', () => {
  it('runs of one day: the time of day, to the second where two minutes agree; the day on the axis', () => {
    // Two demos and a quick run a minute apart, then one half an hour later: every tick read "2026-12-07".
    const t = ['2026-12-07T04:59:03.632Z', '2026-12-07T04:59:58.857Z', '2026-12-07T05:00:56.092Z'];
    expect(wide(t)).toEqual({ labels: ['04:59:03', '04:59:58', '05:00:56'], day: '2026-12-07' });
    expect(wide([t[0]!, '2026-12-07T05:30:00Z'])).toEqual({ labels: ['04:59', '05:30'], day: '2026-12-07' });
  });

  it('runs within two days that cross midnight: date and time', () => {
    expect(wide(['2026-12-06T23:50:00Z', '2026-12-07T00:10:00Z'])).toEqual({
      labels: ['12-06 23:50', '12-07 00:10'],
    });
  });

  it('longer spans: dates, with the time where two shown runs share a day', () => {
    expect(wide(['2026-11-01T10:00:00Z', '2026-11-20T10:00:00Z'])).toEqual({
      labels: ['2026-11-01', '2026-11-20'],
    });
    expect(wide(['2026-11-01T10:00:00Z', '2026-11-20T10:00:00Z', '2026-11-20T14:30:00Z']).labels).toEqual([
      '11-01 10:00',
      '11-20 10:00',
      '11-20 14:30',
    ]);
  });

  it('ticks thin out until their labels fit between them', () => {
    // 30 px a run, 80 px a tick wanted: every third run at first; "HH:MM" (5 × 7 + 8 = 43 px) fits in 90 px.
    const day = Array.from({ length: 7 }, (_, i) => `2026-12-07T${String(8 + i).padStart(2, '0')}:00:00Z`);
    expect(runTicks(day, 30, 80).labels).toEqual([
      '08:00',
      undefined,
      undefined,
      '11:00',
      undefined,
      undefined,
      '14:00',
    ]);
  });
});

describe('history page of runs on one day', () => {
  let root: string;
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'serve-ticks-'));
    ['09:15', '11:40', '16:05'].forEach((hm, i) =>
      writeRun(root, `run-${i}`, fakeRun(i, { startedAt: `2026-12-07T${hm}:00Z` })),
    );
    const index = new RunIndex({ roots: [root], refreshEveryMs: 0 });
    await index.refresh();
    app = createApp({ index, roots: [root], allowedHosts: allowedHosts('127.0.0.1') });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('each drawing (wide and narrow) labels its runs by time and names the day once', async () => {
    const html = await (
      await app.fetch(
        new Request('http://127.0.0.1:8321/history?cell=1024x4&figure=totalTokensPerS', {
          headers: { host: '127.0.0.1:8321' },
        }),
      )
    ).text();
    const drawings = html.split('<svg class="chart history"').slice(1);
    expect(drawings.length).toBe(2);
    for (const d of drawings) {
      const ticks = [...d.matchAll(/class="tick" text-anchor="middle">([^<]*)</g)].map((m) => m[1]);
      expect(ticks).toEqual(['09:15', '11:40', '16:05']);
      expect(d).toContain('run start, 2026-12-07 (UTC) →');
    }
  });
});
