import { contextLabel, fmtDate, fmtTokS } from '../format/index.js';
import { rowLabel } from '../answer/levels.js';
import { esc, escText } from '../report/html/escape.js';
import { card, topHeader } from '../report/html/page.js';
import { peakWhere } from '../report/model.js';
import { facetCounts, FACETS, filterParams, type Facet, type RunFilter } from './filter.js';
import { cellChoices } from './history.js';
import type { IndexProblem } from './run-index.js';
import type { RunEntry } from './run-entry.js';
import { appPage, href } from './shell.js';

export const PAGE_SIZE = 200;

const FACET_LABEL: Record<Facet, string> = {
  model: 'Model',
  engine: 'Engine',
  version: 'Engine version',
  gpu: 'GPU',
  status: 'Run status',
};

function select(name: string, label: string, values: Array<[string, number]>, current?: string): string {
  // A value from the URL that no run has any more stays selectable, so the filter that hides everything shows.
  const all =
    current && !values.some(([v]) => v === current) ? [...values, [current, 0] as [string, number]] : values;
  return `<label>${esc(label)}<select name="${name}"><option value="">any</option>${all
    .map(([v, n]) => `<option value="${esc(v)}"${v === current ? ' selected' : ''}>${esc(v)} (${n})</option>`)
    .join('')}</select></label>`;
}

function filterForm(all: RunEntry[], f: RunFilter): string {
  const facets = facetCounts(all);
  return `<form class="filters" method="get" action="/" id="filters">
<label>Search<input type="search" name="q" value="${esc(f.q)}" placeholder="title, model, folder…"></label>
${FACETS.map((k) => select(k, FACET_LABEL[k], facets[k], f[k])).join('\n')}
<label>From<input type="date" name="from" value="${esc(f.from)}"></label>
<label>To<input type="date" name="to" value="${esc(f.to)}"></label>
<div class="actions"><button class="btn" type="submit">Filter</button><a href="/">clear</a></div>
</form>`;
}

function counts(e: RunEntry): string {
  const c = e.counts;
  return [
    `${c.valid} valid`,
    c.queued ? `${c.queued} queued` : '',
    c.over ? `${c.over} over capacity` : '',
    c.failed ? `${c.failed} failed` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

// As the report's card says it: the cell, and its status where the run has no Valid cell.
function peakText(e: RunEntry): string {
  const p = e.peak;
  if (!p) return '—';
  return `${esc(fmtTokS(p.tokensPerS))} tok/s<span class="sub">${esc(peakWhere(p))}</span>`;
}

// The answer, contexts with the same one on one line: "1K–4K: 8 users", "8K: 4 users".
function answerText(e: RunEntry): string {
  const groups: Array<{ from: number; to: number; users: string }> = [];
  for (const c of e.answer.contexts) {
    const last = groups.at(-1);
    if (last?.users === c.users) last.to = c.contextTokens;
    else groups.push({ from: c.contextTokens, to: c.contextTokens, users: c.users });
  }
  // Rows with rates after the users at once: a context by its label, a workload by its kind (the label in full
  // on hover).
  const rates = (e.answer.rates ?? []).map(
    (x) =>
      `<span class="ans" title="${esc(rowLabel(x.row))}">${esc(rowLabel(x.row).split(':')[0]!)}: <b>${esc(x.rate)}</b></span>`,
  );
  if (!groups.length && !rates.length) return '—';
  return (
    groups
      .map((g) => {
        const at = g.from === g.to ? contextLabel(g.from) : `${contextLabel(g.from)}–${contextLabel(g.to)}`;
        return `<span class="ans">${esc(at)}: <b>${esc(g.users)}</b></span>`;
      })
      .join('') + rates.join('')
  );
}

function row(e: RunEntry): string {
  const report = href('/report', [['run', e.id]]);
  const title = e.title || e.model;
  return `<tr class="st-${esc(e.status)}" data-run="${esc(e.id)}">
<td class="pick-cell"><input type="checkbox" name="run" value="${esc(e.id)}" form="compare" aria-label="select ${esc(title)}"></td>
<td class="run-cell"><a href="${esc(report)}">${esc(title)}</a><span class="sub">${escText(e.model)} · ${escText(e.id)}</span></td>
<td data-label="Started">${escText(fmtDate(e.startedAt))}</td>
<td data-label="Engine">${esc([e.engine, e.engineVersion].filter(Boolean).join(' '))}</td>
<td data-label="GPU">${esc(e.gpu || '—')}</td>
<td class="status" data-label="Status">${esc(e.status)}</td>
<td data-label="Cells">${esc(counts(e))}</td>
<td class="answer" data-label="${e.answer.rates ? 'Users at once · req/s' : 'Users at once'}" title="${esc(`${e.answer.rates ? 'Users at once and requests per second' : 'Users at once'} under ${e.answer.slo}`)}">${answerText(e)}</td>
<td class="num" data-label="Peak">${peakText(e)}</td>
</tr>`;
}

function historyForm(shown: RunEntry[], f: RunFilter): string {
  const cells = cellChoices(shown);
  if (!cells.length) return '';
  const hidden = [...filterParams(f)]
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  return `<form class="pick" method="get" action="/history" id="history-form">${hidden}
<label>Cell or prefill point<select name="cell">${cells
    .map(([v, l]) => `<option value="${esc(v)}">${esc(l)}</option>`)
    .join('')}</select></label>
<div class="actions"><button class="btn" type="submit">Show history</button></div></form>`;
}

// A sweep as the list shows it (docs/sweep.md): its runs are listed among the runs too.
export interface SweepSummary {
  id: string;
  title: string;
  status: string;
  startedAt: string;
  runs: number;
  complete: number;
  failed: number;
}

function sweepsTable(sweeps: readonly SweepSummary[]): string {
  const rows = sweeps
    .map(
      (w) =>
        `<tr class="st-${esc(w.status)}" data-sweep="${esc(w.id)}"><td class="run-cell"><a href="${esc(href('/sweep', [['id', w.id]]))}">${esc(w.title)}</a><span class="sub">${escText(w.id)}</span></td>` +
        `<td data-label="Started">${escText(fmtDate(w.startedAt))}</td><td class="status" data-label="Status">${esc(w.status)}</td>` +
        `<td data-label="Configurations">${w.complete} of ${w.runs} complete${w.failed ? ` · ${w.failed} failed` : ''}</td></tr>`,
    )
    .join('\n');
  return `<table class="runs" id="sweeps"><thead><tr><th>Sweep</th><th>Started</th><th>Status</th><th>Configurations</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export interface ListPageInput {
  sweeps?: SweepSummary[];
  all: RunEntry[];
  shown: RunEntry[];
  filter: RunFilter;
  page: number;
  roots: string[];
  problems: IndexProblem[];
}

// The answer column's head: it names requests per second where a run on the page has rates.
function answerHead(runs: readonly RunEntry[]): string {
  return runs.some((e) => e.answer.rates)
    ? `<th title="The answer: how many users at once each context serves, and how many requests per second each row with rates, under the service level (serve --slo, else the run's own, else the default)">Users at once · req/s</th>`
    : `<th title="The answer: how many users at once each context serves under the service level (serve --slo, else the run's own, else the default)">Users at once</th>`;
}

export function listPage(p: ListPageInput): string {
  const pages = Math.max(1, Math.ceil(p.shown.length / PAGE_SIZE));
  const page = Math.min(Math.max(1, p.page), pages);
  const slice = p.shown.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const pageLink = (n: number) => {
    const q = filterParams(p.filter);
    if (n > 1) q.set('page', String(n));
    return href('/', q);
  };
  const pager =
    pages > 1
      ? `<div class="pager">${page > 1 ? `<a href="${esc(pageLink(page - 1))}" rel="prev">← newer</a>` : ''}<span class="count">page ${page} of ${pages}</span>${
          page < pages ? `<a href="${esc(pageLink(page + 1))}" rel="next">older →</a>` : ''
        }</div>`
      : '';
  const table = slice.length
    ? `<form method="get" action="/compare" id="compare"></form>
<div class="actions"><button class="btn" type="submit" form="compare" id="compare-button">Compare selected</button><span class="count">pick two or more runs; the oldest is the baseline A</span></div>
<table class="runs" id="runs"><thead><tr><th></th><th>Run</th><th>Started</th><th>Engine</th><th>GPU</th><th>Status</th><th>Cells</th>${answerHead(slice)}<th title="The report's peak throughput: the most total tok/s of a Valid cell">Peak throughput</th></tr></thead><tbody>
${slice.map(row).join('\n')}
</tbody></table>${pager}`
    : `<p class="muted" id="no-runs">${
        p.all.length
          ? 'No run matches these filters.'
          : 'No result folders here yet: results appear as runs write them.'
      }</p>`;
  const parts = [
    topHeader(
      'Results',
      `${p.shown.length.toLocaleString('en-US')} of ${p.all.length.toLocaleString('en-US')} ${p.all.length === 1 ? 'run' : 'runs'}`,
      `from ${p.roots.join(', ')}`,
    ),
    card('filter', 'Filter', '', filterForm(p.all, p.filter)),
    ...(p.sweeps?.length
      ? [
          card(
            'sweeps',
            'Sweeps',
            'Servers launched per configuration, the fastest named per cell (docs/sweep.md).',
            sweepsTable(p.sweeps),
          ),
        ]
      : []),
    card('list', 'Runs', 'Newest first. Open a report, or tick runs to compare them.', table),
  ];
  const history = historyForm(p.shown, p.filter);
  if (history)
    parts.push(
      card(
        'history',
        'History',
        'One cell or prefill point across the runs listed above, oldest to newest.',
        history,
      ),
    );
  if (p.problems.length)
    parts.push(
      card(
        'problems',
        'Skipped files',
        'These result files could not be read; they are read again when they change.',
        `<ul class="problems">${p.problems.map((x) => `<li>${esc(x.message)}</li>`).join('')}</ul>`,
      ),
    );
  return appPage('Results · llm-inference-bench', parts.join('\n'));
}
