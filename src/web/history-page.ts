import { fmtDate } from '../format/index.js';
import { esc } from '../report/html/escape.js';
import { card, topHeader } from '../report/html/page.js';
import { twoWidths } from '../report/html/svg.js';
import { filterParams, type RunFilter } from './filter.js';
import { fmtFigure, HELD_TIP, historyChartSvg } from './history-chart.js';
import { cellChoices, cellRefLabel, figuresOf, historyPoints, type CellRef } from './history.js';
import type { RunEntry } from './run-entry.js';
import { appPage, href } from './shell.js';

export const HISTORY_MAX_RUNS = 500;

export interface HistoryPageInput {
  runs: RunEntry[]; // the runs the filter (or the picked ids) selects
  filter: RunFilter;
  picked: string[]; // run ids given in the URL, if any
  cell: CellRef;
  figure: string;
}

function chooser(p: HistoryPageInput): string {
  const keep = [...filterParams(p.filter), ...p.picked.map((id) => ['run', id] as [string, string])]
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  const cellValue = p.cell.kind === 'decode' ? p.cell.key : `p${p.cell.key}`;
  const cells = cellChoices(p.runs);
  const figures = Object.entries(figuresOf(p.cell));
  return `<form class="pick" method="get" action="/history" id="history-form">${keep}
<label>Cell or prefill point<select name="cell">${cells
    .map(([v, l]) => `<option value="${esc(v)}"${v === cellValue ? ' selected' : ''}>${esc(l)}</option>`)
    .join('')}</select></label>
<label>Figure<select name="figure">${figures
    .map(([k, f]) => `<option value="${esc(k)}"${k === p.figure ? ' selected' : ''}>${esc(f.label)}</option>`)
    .join('')}</select></label>
<div class="actions"><button class="btn" type="submit">Show</button></div></form>`;
}

export function historyPage(p: HistoryPageInput): string {
  const fig = figuresOf(p.cell)[p.figure]!;
  // A chart of thousands of points says no more than one of the newest few hundred, and weighs megabytes.
  const every = historyPoints(p.runs, p.cell, p.figure);
  const points = every.slice(-HISTORY_MAX_RUNS);
  const where = cellRefLabel(p.cell);
  const label = `${fig.label}${fig.higherIsBetter ? ' (higher is better)' : ' (lower is better)'}`;
  const drawn = twoWidths((w) => historyChartSvg(points, fig.unit, fig.label, w));
  const chart = drawn
    ? drawn +
      `<p class="detail-hint">Whiskers are 95% intervals where the result has them; a hollow point is a cell with Requests queued; ${
        points.some((pt) => pt.held)
          ? "a square one a cell whose stream was held back on the way (its timing is not the server's); "
          : ''
      }× marks a run that did not measure it. Points link to their reports.</p>`
    : `<p class="muted" id="no-points">No run among these measured ${esc(where)}.</p>`;
  const rows = [...points]
    .reverse()
    .map(
      (pt) =>
        `<tr data-run="${esc(pt.run.id)}"><td data-label="Started">${esc(fmtDate(pt.run.startedAt))}</td><td class="lead"><a href="${esc(
          href('/report', [['run', pt.run.id]]),
        )}">${esc(pt.run.title || pt.run.model)}</a></td><td data-label="${esc(fig.label)}">${esc(fmtFigure(pt.value, fig.unit))}</td><td data-label="95% interval">${
          pt.interval
            ? esc(`${fmtFigure(pt.interval[0], fig.unit)} – ${fmtFigure(pt.interval[1], fig.unit)}`)
            : '—'
        }</td><td data-label="Status">${esc(`${pt.status ?? 'not run'}${pt.held ? HELD_TIP : ''}`)}</td></tr>`,
    )
    .join('');
  const table = `<div class="tbl-wrap"><table class="data history stack" id="history-table"><thead><tr><th>Started</th><th>Run</th><th>${esc(
    fig.label,
  )}</th><th>95% interval</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  const listLink = href('/', filterParams(p.filter));
  return appPage(
    `History · ${where} · ${fig.label}`,
    [
      topHeader(
        'History',
        `${where} · ${fig.label}`,
        `${points.length.toLocaleString('en-US')} ${points.length === 1 ? 'run' : 'runs'}, oldest to newest${
          every.length > points.length
            ? ` (the newest ${HISTORY_MAX_RUNS} of ${every.length.toLocaleString('en-US')}: narrow the filters or dates for older runs)`
            : ''
        }`,
      ),
      card('history-chart', label, '', chooser(p) + chart),
      card('history-runs', 'Runs', 'Newest first.', table),
    ].join('\n'),
    [[listLink, 'These runs in the list']],
  );
}
