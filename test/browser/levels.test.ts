/// <reference lib="dom" />
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import { startServe, type RunningServe } from '../../src/web/server.js';
import { closedOnlyResult, levelsResult, levelsResultB } from '../helpers/level-results.js';
import { writeRun } from '../web/fake-runs.js';
import { layoutProblems } from './layout-check.js';

// The load levels of an HTML report at a phone's width and a desktop's (docs/workloads.md "Reports"): the answer in
// requests per second, the levels' tables (scrolling inside their card with a cue where the page is narrower) and
// their charts, with nothing clipped, overlapping or broken mid-identifier (test/browser/layout-check.ts).
// Screenshots of the section go to test-artifacts/levels-*.png for a person to look at.
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const WIDTHS = [390, 1400] as const;

let browser: Browser;
let serve: RunningServe;
let root: string;

async function open(url: string, width: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(url, { waitUntil: 'load' });
  return page;
}

function file(name: string, html: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `levels-${name}.html`);
  writeFileSync(path, html);
  return pathToFileURL(path).href;
}

describe.skipIf(!existsSync(CHROMIUM))('load levels in the HTML report at 390 and 1400 px', () => {
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    root = mkdtempSync(join(tmpdir(), 'levels-serve-'));
    writeRun(root, 'rates', levelsResult());
    writeRun(root, 'closed', closedOnlyResult());
    writeRun(root, 'rates-b', levelsResultB());
    serve = await startServe({ roots: [root], host: '127.0.0.1', port: 0, allowRemote: false });
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('the report: answer, tables and charts with nothing clipped or overlapping', async () => {
    const url = file('report', renderReport(levelsResult(), 'html'));
    const problems: string[] = [];
    for (const w of WIDTHS) {
      const page = await open(url, w);
      try {
        problems.push(...(await layoutProblems(page)).map((p) => `@${w}: ${p}`));
        await page.locator('#answer').screenshot({ path: `${ARTIFACTS}levels-answer-${w}.png` });
        await page.locator('#levels').screenshot({ path: `${ARTIFACTS}levels-section-${w}.png` });
        // One chart per kind per row at the width the CSS shows; two rows.
        const charts = page.locator(`#levels ${w < 600 ? '.chart-n' : '.chart-w'} svg.chart`);
        expect(await charts.count()).toBe(4);
        // The service level's TTFT bound and the y = x line are drawn in every chart of their kind.
        expect(await page.locator(`#levels ${w < 600 ? '.chart-n' : '.chart-w'} line.ref`).count()).toBe(4);
        // A table wider than the phone scrolls inside its card and says so; on a desktop every column shows.
        expect(await page.locator('#levels .scroll-cue:visible').count()).toBe(w === 390 ? 2 : 0);
      } finally {
        await page.close();
      }
    }
    expect(problems).toEqual([]);
  });

  it("serve's list, run page and compare page with rates: nothing clipped, overlapping or broken", async () => {
    const problems: string[] = [];
    for (const [name, path] of [
      ['list', '/'],
      ['run', '/report?run=rates'],
      ['compare', '/compare?run=rates&run=rates-b'],
    ] as const)
      for (const w of WIDTHS) {
        const page = await open(new URL(path, serve.url).href, w);
        try {
          problems.push(...(await layoutProblems(page)).map((p) => `${name} @${w}: ${p}`));
          await page.screenshot({
            path: `${ARTIFACTS}levels-serve-${name}-${w}.png`,
            fullPage: name === 'list',
          });
        } finally {
          await page.close();
        }
      }
    expect(problems).toEqual([]);
  });
});
