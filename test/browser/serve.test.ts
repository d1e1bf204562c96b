/// <reference lib="dom" />
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../../src/web/server.js';
import { SEEDS, seedResult } from '../report/seeds.js';
import { fakeRun, writeRun } from '../web/fake-runs.js';

// The results browser in Debian's chromium, at a desktop width and a phone's (390 px): list, filter, open,
// compare, history; nothing is requested from anywhere but the app; names from the files stay text.
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const haveChromium = existsSync(CHROMIUM);
const HOSTILE = '<img src=x onerror=alert(1)>';
const WIDTHS = [1400, 390] as const;

let browser: Browser;
let server: RunningServe;
let root: string;

interface Opened {
  page: Page;
  outside: string[]; // requests to anywhere but the app
  problems: string[]; // dialogs (an injected alert), page errors and console errors (a CSP the page breaks)
}

async function open(path: string, width: number): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const outside: string[] = [];
  const problems: string[] = [];
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(server.url)) return route.continue();
    outside.push(u);
    return route.abort();
  });
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await page.goto(new URL(path, server.url).href, { waitUntil: 'load' });
  return { page, outside, problems };
}

/** The page does not scroll sideways: whatever is wide scrolls inside its own box. */
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

async function done(o: Opened, shot: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await o.page.screenshot({ path: `${ARTIFACTS}${shot}.png`, fullPage: true });
  expect(o.outside).toEqual([]);
  expect(o.problems).toEqual([]);
  await o.page.close();
}

describe.skipIf(!haveChromium)('serve in chromium', () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'serve-browser-'));
    for (let i = 0; i < 6; i++)
      writeRun(
        root,
        `llama/run-${i}`,
        fakeRun(i, {
          model: 'llama-3-70b',
          engine: 'vllm',
          version: i < 3 ? '0.9.0' : '0.10.0',
          gpu: 'H200',
          startedAt: new Date(Date.UTC(2026, 10, 1 + i * 3)).toISOString(),
          intervals: i >= 3,
        }),
      );
    writeRun(root, 'seed/h200', seedResult(SEEDS[1]!.id)); // 8 contexts × 8 levels: wider than a phone
    writeRun(root, 'qwen/run-a', fakeRun(10, { model: 'qwen-32b', engine: 'sglang', gpu: 'RTX 6000' }));
    writeRun(
      root,
      `evil/${HOSTILE}`,
      fakeRun(11, {
        model: HOSTILE,
        title: `${HOSTILE} title`,
        engine: `<script>alert(2)</script>`,
        launchCommand: `vllm serve "${HOSTILE}" --api-key <redacted>`,
      }),
    );
    server = await startServe({ roots: [root], host: '127.0.0.1', port: 0, allowRemote: false });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  for (const width of WIDTHS) {
    it(`${width} px: list, filter by model and version, open a report`, async () => {
      const o = await open('/', width);
      const { page } = o;
      expect(await page.locator('#runs tbody tr').count()).toBe(9);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      // The hostile names are text: no alert fired (checked in done()), and they read back verbatim.
      expect(await page.locator(`tr[data-run="evil/${HOSTILE}"] .run-cell a`).innerText()).toBe(
        `${HOSTILE} title`,
      );
      await page.selectOption('select[name=model]', 'llama-3-70b');
      await page.selectOption('select[name=version]', '0.10.0');
      await Promise.all([
        page.waitForURL(/version=0\.10\.0/),
        page.click('form.filters button[type=submit]'),
      ]);
      expect(new URL(page.url()).searchParams.get('model')).toBe('llama-3-70b');
      const ids = await page.$$eval('#runs tbody tr', (rows) => rows.map((r) => r.getAttribute('data-run')));
      expect(ids).toEqual(['llama/run-5', 'llama/run-4', 'llama/run-3']);
      await Promise.all([
        page.waitForURL(/\/report\?run=/),
        page.click('tr[data-run="llama/run-4"] .run-cell a'),
      ]);
      expect(await page.locator('[data-cell]').count()).toBe(16);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      await done(o, `serve-list-open-${width}`);
    });

    it(`${width} px: pick three runs and compare them, the oldest as A`, async () => {
      const o = await open('/?model=llama-3-70b', width);
      const { page } = o;
      for (const id of ['llama/run-5', 'llama/run-1', 'llama/run-3'])
        await page.check(`tr[data-run="${id}"] input[type=checkbox]`);
      await Promise.all([page.waitForURL(/\/compare\?/), page.click('#compare-button')]);
      expect(new URL(page.url()).searchParams.getAll('run')).toEqual([
        'llama/run-5',
        'llama/run-3',
        'llama/run-1',
      ]);
      // Two ratio matrices (B/A, C/A) of 16 cells each; A is run 1 (the oldest).
      expect(await page.locator('[data-ratio-cell]').count()).toBe(32);
      const a = fakeRun(1).decode.find(
        (c) => c.contextTokens === 1024 && c.concurrency === 1,
      )!.totalTokensPerS!;
      const b = fakeRun(3).decode.find(
        (c) => c.contextTokens === 1024 && c.concurrency === 1,
      )!.totalTokensPerS!;
      const shown = Number(
        await page
          .locator('#ratio-B [data-ratio-cell][data-context="1024"][data-concurrency="1"]')
          .getAttribute('data-ratio'),
      );
      expect(shown).toBeCloseTo(b / a, 3);
      // The answer's run columns (A, B, C) read alike: B was right-aligned by the one-run table's rule.
      const aligns = await page.$$eval('#compare-answer tbody tr:first-child td', (tds) =>
        tds.map((td) => getComputedStyle(td).textAlign),
      );
      expect(aligns).toEqual(['left', 'left', 'left']);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      await done(o, `serve-compare-${width}`);
    });

    it(`${width} px: history of a cell across runs, with intervals where the results have them`, async () => {
      const o = await open('/?model=llama-3-70b', width);
      const { page } = o;
      await page.selectOption('#history-form select[name=cell]', '8192x4');
      await Promise.all([page.waitForURL(/\/history\?/), page.click('#history-form button')]);
      const chart = page.locator('svg.history:visible');
      expect(await chart.count()).toBe(1);
      expect(await chart.locator('[data-point]').count()).toBe(6);
      // Runs 3-5 carry intervals: a whisker each; the first three none.
      expect(await chart.locator('[data-point][data-lo]').count()).toBe(3);
      // Axis text stays legible: at least 9 px on screen at either width.
      const tick = await chart.locator('text.tick').first().boundingBox();
      expect(tick!.height).toBeGreaterThanOrEqual(9);
      await page.selectOption('#history-form select[name=figure]', 'ttftMs');
      await Promise.all([page.waitForURL(/figure=ttftMs/), page.click('#history-form button')]);
      const perm = page.url();
      expect(await page.locator('#history-table tbody tr').count()).toBe(6);
      // A permalink shows the same view in a fresh page.
      const again = await open(new URL(perm).pathname + new URL(perm).search, width);
      expect(await again.page.locator('h2').first().innerText()).toContain('TTFT');
      await again.page.close();
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      await done(o, `serve-history-${width}`);
    });
  }

  it('390 px report: the matrix scrolls inside its card with its context labels in view; charts stay legible', async () => {
    const o = await open('/report?run=seed%2Fh200', 390);
    const { page } = o;
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    const wrap = page.locator('#decode .hm-wrap');
    const label = page.locator('#decode-heatmap tbody th').first();
    const before = (await label.boundingBox())!.x;
    expect(await wrap.evaluate((w) => w.scrollWidth > w.clientWidth)).toBe(true);
    expect(await wrap.evaluate((w) => (w.scrollBy(400, 0), w.scrollLeft))).toBeGreaterThan(100);
    // A label that scrolled with the matrix would have moved by the scroll; a stuck one moves by the cell gap.
    expect(Math.abs((await label.boundingBox())!.x - before)).toBeLessThanOrEqual(4);
    // The narrow drawing of each chart is the one shown, its axis text at least 9 px high.
    for (const id of ['#prefill', '#pareto']) {
      const svg = page.locator(`${id} .chart-n svg`);
      expect(await svg.isVisible()).toBe(true);
      expect(await page.locator(`${id} .chart-w svg`).isVisible()).toBe(false);
      expect((await svg.locator('text').first().boundingBox())!.height).toBeGreaterThanOrEqual(9);
    }
    await done(o, 'serve-report-390');
  });

  it('the hostile run: report and launch command are text; a new folder shows without a restart', async () => {
    const o = await open(`/report?${new URLSearchParams([['run', `evil/${HOSTILE}`]])}`, 390);
    const { page } = o;
    expect(await page.locator('pre.cmd').innerText()).toContain(`vllm serve "${HOSTILE}"`);
    expect(await page.locator('img').count()).toBe(0);
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    writeRun(root, 'later/run-new', fakeRun(20, { model: 'mistral', title: 'appeared later' }));
    // A page answers from memory and walks the folders in the background (at most once a second): the run
    // shows on a load a moment later. Bounded: 20 loads, 0.5 s apart.
    const row = page.locator('tr[data-run="later/run-new"]');
    for (let i = 0; i < 20 && !(await row.count()); i++) {
      await new Promise((r) => setTimeout(r, 500));
      await page.goto(server.url);
    }
    expect(await row.innerText()).toContain('appeared later');
    await done(o, 'serve-hostile-390');
  });
});
