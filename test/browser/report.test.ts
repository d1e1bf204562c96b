/// <reference lib="dom" />
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCompare, renderReport } from '../../src/report/index.js';
import { HOSTILE, syntheticResult } from '../report/synthetic.js';
import { SEEDS, seedResult } from '../report/seeds.js';

// Opens generated HTML in Debian's chromium (never a downloaded browser). CI installs it via .ci/run.
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.warn(`browser tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

let browser: Browser;

function writePage(name: string, html: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = `${ARTIFACTS}${name}.html`;
  writeFileSync(file, html);
  return pathToFileURL(file).href;
}

/** Opens a page and records every request other than the page itself, and any dialog or page error. */
async function open(url: string, scheme: 'light' | 'dark' = 'light') {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
  const requests: string[] = [];
  const problems: string[] = [];
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u === url) return route.continue();
    requests.push(u);
    return route.abort();
  });
  page.on('request', (req) => {
    if (req.url() !== url && !requests.includes(req.url())) requests.push(req.url());
  });
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(url, { waitUntil: 'load' });
  return { page, requests, problems };
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });

describe.skipIf(!haveChromium)('HTML report in chromium', () => {
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('imported H200 seed: no request leaves the page, one heatmap cell per measurement with its status', async () => {
    const r = seedResult(SEEDS[1].id);
    const url = writePage('report-h200', renderReport(r, 'html'));
    const { page, requests, problems } = await open(url);
    const cells = await page.$$eval('[data-cell]', (els) =>
      els.map((e) => ({
        ctx: Number(e.getAttribute('data-context')),
        n: Number(e.getAttribute('data-concurrency')),
        status: e.getAttribute('data-status'),
        text: e.textContent ?? '',
      })),
    );
    expect(cells).toHaveLength(r.decode.length);
    for (const c of r.decode) {
      const shown = cells.find((x) => x.ctx === c.contextTokens && x.n === c.concurrency);
      expect(shown?.status, `${c.contextTokens}x${c.concurrency}`).toBe(c.status);
    }
    const queued = cells.find((x) => x.ctx === 8192 && x.n === 64)!;
    expect(queued.text).toContain('2,793.5');
    expect(queued.text).toContain('11,897 ms TTFT');
    // The prefill outlier is drawn as one and explained in words.
    expect(await page.locator('[data-prefill][data-outlier]').count()).toBe(1);
    expect(await page.locator('[data-anomaly="prefill-outlier"]').innerText()).toContain('64K');
    // Cell details open on click, with the cell's figures.
    const detail = page.locator('#detail-cell-8192x64');
    expect(await detail.isVisible()).toBe(false);
    await page.click('#cell-8192x64');
    expect(await detail.isVisible()).toBe(true);
    expect(await detail.innerText()).toContain('Average active requests 56.4 of 64');
    await shot(page, 'report-h200-light');
    // Theme toggle: auto → light → dark.
    await page.click('.theme-toggle');
    await page.click('.theme-toggle');
    expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe('rgb(13, 17, 23)');
    await shot(page, 'report-h200-dark');
    // Print: interactive parts hidden, light colours.
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('.detail-host').isVisible()).toBe(false);
    expect(await page.locator('.theme-toggle').isVisible()).toBe(false);
    // Printing uses the light palette even when the page is in dark mode.
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      'rgb(255, 255, 255)',
    );
    await page.pdf({ path: `${ARTIFACTS}report-h200.pdf`, format: 'A4', printBackground: true });
    expect(requests).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('dark scheme from the system preference', async () => {
    const url = writePage('report-rtx', renderReport(seedResult(SEEDS[0].id), 'html'));
    const { page, requests } = await open(url, 'dark');
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      'rgb(13, 17, 23)',
    );
    expect(await page.locator('[data-cell]').count()).toBe(64);
    await shot(page, 'report-rtx-dark');
    expect(requests).toEqual([]);
    await page.close();
  });

  it('escapes strings from the result: the hostile model name is text, never a script', async () => {
    const url = writePage('report-synthetic', renderReport(syntheticResult(), 'html'));
    const { page, requests, problems } = await open(url);
    expect(await page.title()).toContain(HOSTILE);
    expect(await page.locator('p.title').innerText()).toContain(HOSTILE);
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.locator('[data-cell][data-status="Failed"]').count()).toBe(1);
    expect(await page.locator('[data-cell][data-status="Requests queued"]').count()).toBe(1);
    await page.click('#cell-4096x8');
    expect(await page.locator('#detail-cell-4096x8 figure.samples').isVisible()).toBe(true);
    await shot(page, 'report-synthetic');
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });

  it('compare page of the two seeds: ratio cells, no network', async () => {
    const url = writePage(
      'compare-seeds',
      renderCompare([seedResult(SEEDS[0].id), seedResult(SEEDS[1].id)], 'html'),
    );
    const { page, requests, problems } = await open(url);
    expect(await page.locator('[data-ratio-cell][data-ratio]').count()).toBe(42);
    expect(
      await page.locator('[data-ratio-cell][data-context="8192"][data-concurrency="1"]').innerText(),
    ).toContain('1.63×');
    await shot(page, 'compare-seeds');
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });
});
