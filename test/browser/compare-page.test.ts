/// <reference lib="dom" />
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResult, type RunResult } from '../../src/results/schema.js';
import { startServe, type RunningServe } from '../../src/web/server.js';
import { writeRun } from '../web/fake-runs.js';
import { layoutProblems } from './layout-check.js';

// serve's compare page for two demo runs of the same simulated engine, three days apart: the same title, the
// same users at once, prefill lines a few percent apart, Requests queued and flagged cells. At a phone's width
// and a desktop's: each answer line says whose it is, no badge or "!" covers a figure, no chart label covers
// another, a point or a line, and each run is named by its id and start. Screenshots: test-artifacts/.
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const haveChromium = existsSync(CHROMIUM);

const fixture = (name: string): RunResult =>
  parseResult(JSON.parse(readFileSync(new URL(`../fixtures/results/${name}`, import.meta.url), 'utf8')));

let browser: Browser;
let serve: RunningServe;
let root: string;

async function open(width: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(new URL('/compare?run=demo%2Fsecond&run=demo%2Fbusy', serve.url).href, {
    waitUntil: 'load',
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}compare-page-${width}.png`, fullPage: true });
  return page;
}

describe.skipIf(!haveChromium)("serve's compare page at 390 and 1400 px", () => {
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    root = mkdtempSync(join(tmpdir(), 'compare-page-'));
    writeRun(root, 'demo/busy', fixture('demo-busy.json'));
    writeRun(root, 'demo/second', fixture('demo-second.json'));
    serve = await startServe({ roots: [root], host: '127.0.0.1', port: 0, allowRemote: false });
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  for (const width of [390, 1400])
    it(`at ${width} px: nothing overlaps, each answer line names its run, each run its id and start`, async () => {
      const page = await open(width);
      try {
        expect(await layoutProblems(page)).toEqual([]);
        const seen = await page.evaluate(() => {
          const shown = (e: Element) => e.getBoundingClientRect().width > 0;
          // What a reader sees beside each answer: the column's head on a desktop, the line's own label on a phone.
          const head = [...document.querySelectorAll('#compare-answer thead th')].filter(shown);
          const rows = [...document.querySelectorAll('#compare-answer tbody tr')].map((tr) =>
            [...tr.querySelectorAll('td')].map((td) => {
              const before = getComputedStyle(td, '::before').content;
              return head.length ? '' : before === 'none' ? '' : before;
            }),
          );
          return {
            head: head.map((h) => h.textContent),
            rows,
            kpis: [...document.querySelectorAll('.kpi')].map((k) => (k as HTMLElement).innerText),
            marks: [...document.querySelectorAll('td.hm-cell .hm-badge, td.hm-cell .hm-flag')].filter(shown)
              .length,
            labels: [...document.querySelectorAll('#prefill svg.chart text.pl')].filter(shown).length,
          };
        });
        if (width === 1400) expect(seen.head).toEqual(['Context', 'A', 'B']);
        else {
          expect(seen.head).toEqual([]);
          expect(seen.rows.length).toBe(4);
          for (const r of seen.rows) expect(r).toEqual(['"A: "', '"B: "']);
        }
        // The oldest run is A: demo-busy started on the 4th, the second demo on the 7th; both titled the same.
        expect(seen.kpis[0]).toMatch(
          /RUN A\s+Demo: simulated engine[\s\S]*20261204-092551-yaga · started 2026-12-04 09:25 UTC/,
        );
        expect(seen.kpis[1]).toMatch(
          /RUN B\s+Demo: simulated engine[\s\S]*20261207-045903-mzpc · started 2026-12-07 04:59 UTC/,
        );
        // The checks had something to check: the marks of the queued and flagged cells, the prefill labels kept.
        expect(seen.marks).toBeGreaterThan(10);
        expect(seen.labels).toBeGreaterThan(0);
      } finally {
        await page.close();
      }
    });
});
