/// <reference lib="dom" />
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCompare, renderReport } from '../../src/report/index.js';
import { parseResult, type RunResult } from '../../src/results/schema.js';
import { startServe, type RunningServe } from '../../src/web/server.js';
import { SEEDS, seedResult } from '../report/seeds.js';
import { syntheticResult } from '../report/synthetic.js';
import { fakeRun, writeRun } from '../web/fake-runs.js';
import { layoutProblems } from './layout-check.js';

// Layout at three widths: the report, the comparison and the results browser at a phone's width, a small laptop's and a
// desktop's. Fails on a clipped or covered badge, a figure touching its cell, overlapping chart labels, a table
// wider than its card without a cue (or sticking out of it), and an identifier broken mid-way. Screenshots go to
// test-artifacts/ (layout-*.png) for a person to look at.
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const WIDTHS = [390, 800, 1400] as const;
const haveChromium = existsSync(CHROMIUM);

// A real demo run on a busy laptop: Requests queued and client-bound marks in the same cells, a KV capacity
// source of metric names, per request above total at one request at once.
const demoBusy = (): RunResult =>
  parseResult(
    JSON.parse(readFileSync(new URL('../fixtures/results/demo-busy.json', import.meta.url), 'utf8')),
  );

let browser: Browser;
let serve: RunningServe;
let root: string;

async function check(url: string, width: number, shot: string): Promise<string[]> {
  const page: Page = await browser.newPage({ viewport: { width, height: 900 } });
  try {
    await page.goto(url, { waitUntil: 'load' });
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}layout-${shot}-${width}.png`, fullPage: true });
    return (await layoutProblems(page)).map((p) => `${shot} @${width}: ${p}`);
  } finally {
    await page.close();
  }
}

function file(name: string, html: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `layout-${name}.html`);
  writeFileSync(path, html);
  return pathToFileURL(path).href;
}

describe.skipIf(!haveChromium)('layout at 390, 800 and 1400 px', () => {
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    root = mkdtempSync(join(tmpdir(), 'layout-serve-'));
    for (let i = 0; i < 4; i++)
      writeRun(
        root,
        `llama/run-${i}`,
        fakeRun(i, {
          model: 'meta-llama/Llama-3.3-70B-Instruct',
          engine: 'vllm',
          gpu: 'H200',
          startedAt: new Date(Date.UTC(2026, 10, 1 + i * 3)).toISOString(),
          intervals: true,
        }),
      );
    serve = await startServe({ roots: [root], host: '127.0.0.1', port: 0, allowRemote: false });
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const pages: Array<[string, () => string]> = [
    ['report-demo', () => file('report-demo', renderReport(demoBusy(), 'html'))],
    ['report-h200', () => file('report-h200', renderReport(seedResult(SEEDS[1].id), 'html'))],
    ['report-rtx', () => file('report-rtx', renderReport(seedResult(SEEDS[0].id), 'html'))],
    ['report-synthetic', () => file('report-synthetic', renderReport(syntheticResult(), 'html'))],
    [
      'compare-seeds',
      () => file('compare-seeds', renderCompare([seedResult(SEEDS[0].id), seedResult(SEEDS[1].id)], 'html')),
    ],
    ['serve-list', () => serve.url],
    ['serve-report', () => new URL('/report?run=llama%2Frun-3', serve.url).href],
    [
      'serve-compare',
      () => new URL('/compare?run=llama%2Frun-0&run=llama%2Frun-2&run=llama%2Frun-3', serve.url).href,
    ],
    ['serve-history', () => new URL('/history?cell=8192x4&figure=totalTokensPerS', serve.url).href],
  ];

  for (const [name, url] of pages)
    it(`${name}: nothing clipped, overlapping, too wide without a cue or broken mid-identifier`, async () => {
      const problems: string[] = [];
      for (const w of WIDTHS) problems.push(...(await check(url(), w, name)));
      expect(problems).toEqual([]);
    });

  it('the checks can fail: a clipped badge, overlapping labels, a table too wide without a cue and a broken flag are named', async () => {
    const broken = `<!doctype html><meta name="viewport" content="width=device-width"><main><section class="card" style="width:300px;padding:10px">
<table><tr><td class="hm-cell" style="width:40px;position:relative"><span class="hm-badge" style="display:block;width:30px;overflow:hidden;white-space:nowrap">queued badge</span></td></tr></table>
<svg class="chart" width="200" height="100"><text class="pl" x="10" y="20">16</text><text class="pl" x="12" y="22">8</text><circle cx="100" cy="50" r="5"/></svg>
<div class="tbl-wrap" style="overflow-x:auto"><table><tr><td style="white-space:nowrap">${'wide '.repeat(40)}</td></tr></table></div>
<p style="width:190px;font:15px sans-serif">then set the option --gpu-memory-utilization higher</p></section></main>`;
    const problems = await check(file('broken', broken), 800, 'broken');
    expect(problems.some((p) => p.includes('clipped badge'))).toBe(true);
    expect(problems.some((p) => p.includes('chart labels overlap'))).toBe(true);
    expect(problems.some((p) => p.includes('with no cue'))).toBe(true);
    expect(
      problems.some((p) => p.includes('identifier broken across lines: "--gpu-memory-utilization"')),
    ).toBe(true);
  });
});
