import { Hono, type Context } from 'hono';
import { isBenchError } from '../errors.js';
import { compareAnswerOf, compareModel } from '../report/compare-model.js';
import { renderCompareHtml } from '../report/compare-html.js';
import { esc } from '../report/html/escape.js';
import { card, topHeader } from '../report/html/page.js';
import { renderHtml } from '../report/html/template.js';
import { loadResult } from '../results/read.js';
import { AnalysisCache } from './analysis-cache.js';
import { loadSweep, readSweepFile } from '../results/sweep-io.js';
import { renderSweepHtml } from '../report/sweep-html.js';
import { sweepModel } from '../report/sweep-model.js';
import type { ServiceLevel } from '../results/schema.js';
import { DEFAULT_SERVICE_LEVEL, formatServiceLevel, parseServiceLevel } from '../stats/slo.js';
import { filterParams, filterRuns, parseFilter } from './filter.js';
import { historyPage } from './history-page.js';
import { figuresOf, parseCellRef } from './history.js';
import { listPage } from './list-page.js';
import type { RunIndex } from './run-index.js';
import { APP_CSP_HEADER, appPage, appPageOptions, href } from './shell.js';

// The results browser as a plain Request → Response handler (tested in-process); src/web/server.ts serves it
// over node:http. Every view is a GET whose state is in its URL, so every view is a permalink.

export interface AppOptions {
  index: RunIndex;
  roots: string[]; // shown on the list page
  // Host header names accepted (DNS rebinding: a page on another site that resolves its name to 127.0.0.1
  // must not read the results). Undefined: any host (only when the user asked to serve beyond loopback).
  allowedHosts?: ReadonlySet<string>;
  slo?: ServiceLevel; // serve --slo: the answer's service level unless a page's ?slo= names another
}

// ?slo=ttft=1s,tok/s=30 on a report or compare page judges it by that level (a permalink like every view).
function pageSlo(o: AppOptions, c: Context): ServiceLevel | string | undefined {
  const q = c.req.query('slo');
  return q ? parseServiceLevel(q) : o.slo;
}

function sloForm(run: string, slo: ServiceLevel | undefined): string {
  return `<form class="actions" method="get" action="/report"><input type="hidden" name="run" value="${esc(run)}"><label class="count">Service level <input name="slo" value="${esc(
    slo ? formatServiceLevel(slo) : '',
  )}" placeholder="${esc(formatServiceLevel(DEFAULT_SERVICE_LEVEL))}"></label><button class="btn" type="submit">Judge again</button></form>`;
}

export function hostName(hostHeader: string | undefined): string {
  const h = (hostHeader ?? '').trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon >= 0 ? h.slice(0, colon) : h;
}

function message(c: Context, status: 404 | 400 | 403 | 422, title: string, text: string) {
  return c.html(
    appPage(title, topHeader('Results', title, '') + card('message', title, '', `<p>${esc(text)}</p>`)),
    status,
  );
}

export function createApp(o: AppOptions): Hono {
  const app = new Hono();
  const analyses = new AnalysisCache();
  app.use('*', async (c, next) => {
    if (o.allowedHosts && !o.allowedHosts.has(hostName(c.req.header('host'))))
      return c.text(
        'This results browser answers only to the names it listens on (Host header refused).\n',
        403,
      );
    await next();
    c.header('Content-Security-Policy', APP_CSP_HEADER);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cache-Control', 'no-store');
  });
  app.get('/', (c) => listRoute(o, c));
  app.get('/api/runs', (c) => runsApi(o, c));
  app.get('/report', (c) => reportRoute(o, c, analyses));
  app.get('/compare', (c) => compareRoute(o, c));
  app.get('/history', (c) => historyRoute(o, c));
  app.get('/sweep', (c) => sweepRoute(o, c));
  app.notFound((c) => message(c, 404, 'Not found', 'This address is not part of the results browser.'));
  app.onError((err, c) => {
    if (isBenchError(err)) return message(c, 422, 'Cannot read this result', err.message);
    return c.text('Internal error in the results browser (this is a bug).\n', 500);
  });
  return app;
}

async function listRoute(o: AppOptions, c: Context) {
  const url = new URL(c.req.url);
  const filter = parseFilter(url.searchParams);
  const all = await o.index.runs();
  const sweeps = (await o.index.sweeps()).flatMap((ref) => {
    try {
      const f = readSweepFile(ref.dir);
      const count = (s: string) => f.runs.filter((r) => r.status === s).length;
      return [
        {
          id: ref.id,
          title: f.title ?? `Sweep ${f.sweepId}`,
          status: f.status,
          startedAt: f.startedAt,
          runs: f.runs.length,
          complete: count('complete'),
          failed: count('failed'),
        },
      ];
    } catch {
      return []; // being written, or not this tool's: the list goes on without it
    }
  });
  return c.html(
    listPage({
      sweeps,
      all,
      shown: filterRuns(all, filter),
      filter,
      page: Number(url.searchParams.get('page') ?? '1') || 1,
      roots: o.roots,
      problems: o.index.problems(),
    }),
  );
}

async function runsApi(o: AppOptions, c: Context) {
  const filter = parseFilter(new URL(c.req.url).searchParams);
  const runs = filterRuns(await o.index.runs(), filter).map(
    ({ decode: _d, prefill: _p, file: _f, ...meta }) => meta,
  );
  return c.json({ count: runs.length, runs });
}

async function reportRoute(o: AppOptions, c: Context, analyses: AnalysisCache) {
  const id = c.req.query('run') ?? '';
  const e = await o.index.get(id);
  if (!e)
    return message(
      c,
      404,
      'No such run',
      `No run "${id}" under the served folders: it may have been moved or deleted.`,
    );
  const slo = pageSlo(o, c);
  if (typeof slo === 'string') return message(c, 400, 'Not a service level', slo);
  const { result, analysis } = analyses.get(e.file, () => loadResult(e.file), slo);
  const page = appPageOptions([
    [href('/history', [['run', id]]), 'History of this run'],
    [href('/', [['model', e.model]]), 'Runs of this model'],
  ]);
  return c.html(renderHtml(result, { ...page, nav: `${page.nav ?? ''}${sloForm(id, slo)}` }, { analysis }));
}

async function compareRoute(o: AppOptions, c: Context) {
  const ids = c.req.queries('run') ?? [];
  const byId = new Map((await o.index.runs()).map((e) => [e.id, e]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length)
    return message(c, 404, 'No such run', `Not found under the served folders: ${missing.join(', ')}.`);
  const picked = [...new Set(ids)].map((id) => byId.get(id)!);
  if (picked.length < 2)
    return message(
      c,
      400,
      'Pick two or more runs',
      'Tick two or more runs in the list, then press Compare selected.',
    );
  // The oldest run is the baseline A unless base= names another.
  const base = c.req.query('base');
  picked.sort((a, b) => (a.id === base ? -1 : b.id === base ? 1 : a.startedAt.localeCompare(b.startedAt)));
  const slo = pageSlo(o, c);
  if (typeof slo === 'string') return message(c, 400, 'Not a service level', slo);
  const m = compareModel(picked.map((e) => loadResult(e.file)));
  return c.html(renderCompareHtml(m, appPageOptions(), { slo, answer: compareAnswerOf(m, slo) }));
}

// A sweep's report, each configuration linked to its run's report.
async function sweepRoute(o: AppOptions, c: Context) {
  const id = c.req.query('id') ?? '';
  const ref = (await o.index.sweeps()).find((s) => s.id === id);
  if (!ref)
    return message(
      c,
      404,
      'No such sweep',
      `No sweep "${id}" under the served folders: it may have been moved or deleted.`,
    );
  const slo = pageSlo(o, c);
  if (typeof slo === 'string') return message(c, 400, 'Not a service level', slo);
  const { file, results } = loadSweep(ref.dir);
  const runHref = (key: string) => href('/report', [['run', `${ref.id}/${key}`]]);
  return c.html(renderSweepHtml(sweepModel(file, results, { slo }), appPageOptions(), runHref));
}

async function historyRoute(o: AppOptions, c: Context) {
  const url = new URL(c.req.url);
  const filter = parseFilter(url.searchParams);
  const picked = url.searchParams.getAll('run');
  const all = await o.index.runs();
  const runs = picked.length ? all.filter((e) => picked.includes(e.id)) : filterRuns(all, filter);
  const firstCell = runs.flatMap((e) => Object.keys(e.decode))[0];
  const cell = parseCellRef(url.searchParams.get('cell') ?? firstCell);
  if (!cell)
    return message(
      c,
      400,
      'No cell to follow',
      'Pick a cell such as 8192x4, or a prefill point such as p8192.',
    );
  const figures = Object.keys(figuresOf(cell));
  const asked = url.searchParams.get('figure') ?? '';
  const figure = figures.includes(asked) ? asked : figures[0]!;
  // One run picked: follow its cell across the runs of the same model, engine and GPU.
  if (picked.length === 1 && runs[0]) {
    const e = runs[0];
    const same = filterRuns(all, { model: e.model, engine: e.engine, gpu: e.gpu || undefined });
    const to = new URLSearchParams(
      filterParams({ model: e.model, engine: e.engine, gpu: e.gpu || undefined }),
    );
    to.set('cell', url.searchParams.get('cell') ?? firstCell ?? '');
    to.set('figure', figure);
    if (same.length) return c.redirect(href('/history', to));
  }
  return c.html(historyPage({ runs, filter, picked, cell, figure }));
}
