import type { DecodeCell, RunResult } from '../../results/schema.js';
import type { Anomaly } from '../anomalies.js';
import { contextLabel, fmtMs, fmtTokS, fmtTokSChart } from '../../format/index.js';
import { cellMap, decodeConcurrency, decodeContexts, intervalLines, repeatsText } from '../model.js';
import { cssVars, seqColor } from './color.js';
import { esc } from './escape.js';
import { cellKey, type CellStatus, STATUS_CLASS } from '../../cell-rules.js';

// The decode matrix as a table heatmap: colour = total tok/s (log scale), TTFT in every cell,
// status as pattern and badge so it survives greyscale printing. Cells open their details on click.

/** A matrix's least width: about 64 px a column (54 in the side-by-side matrices of a comparison). */
export const matrixMinWidth = (columns: number, compact = false) =>
  `min-width:${compact ? 48 + columns * 54 : 70 + columns * 64}px`;

export const cellId = (c: { contextTokens: number; concurrency: number }) =>
  `cell-${cellKey(c.contextTokens, c.concurrency)}`;

function cellTitle(c: DecodeCell, flags: Anomaly[]): string {
  const head = `${contextLabel(c.contextTokens)} context × ${c.concurrency} requests: ${c.status}`;
  if (c.totalTokensPerS === null) return [head, c.error ?? ''].filter(Boolean).join('\n');
  return [
    head,
    `${fmtTokS(c.totalTokensPerS)} tok/s total, ${fmtTokS(c.perRequestTokensPerS)} tok/s per request`,
    `TTFT ${fmtMs(c.ttftMs)} (median)`,
    ...intervalLines(c),
    ...[repeatsText(c)].filter((x) => x !== undefined),
    ...flags.map((f) => `⚠ ${f.kind.replace('-', ' ')}`),
    'Click for details',
  ].join('\n');
}

export function heatmapHtml(
  r: RunResult,
  flagsByCell: Map<string, Anomaly[]>,
  perGpu?: number,
  run?: string, // set in compare pages: cells are labelled by run and open no details
  scale?: { min: number; max: number }, // shared colour scale across the runs of a comparison
): string {
  const ctx = decodeContexts(r);
  const conc = decodeConcurrency(r);
  const map = cellMap(r);
  const values = r.decode.map((c) => c.totalTokensPerS).filter((v): v is number => v !== null && v > 0);
  const min = scale?.min ?? Math.min(...values);
  const max = scale?.max ?? Math.max(...values);
  const head = `<tr><th class="corner" scope="col"><span>context ↓</span><span>requests at once →</span></th>${conc
    .map((n) => `<th scope="col">${n}</th>`)
    .join('')}</tr>`;
  const body = ctx
    .map((x) => {
      const tds = conc.map((n) => {
        const c = map.get(cellKey(x, n));
        if (!c) return `<td class="hm-empty" title="not measured in this result">not run</td>`;
        const flags = flagsByCell.get(cellKey(x, n)) ?? [];
        const attrs = run
          ? `data-run="${esc(run)}" data-context="${c.contextTokens}" data-concurrency="${c.concurrency}" ` +
            `data-status="${esc(c.status)}" title="${esc(cellTitle(c, flags).replace('\nClick for details', ''))}"`
          : `id="${cellId(c)}" data-cell data-context="${c.contextTokens}" data-concurrency="${c.concurrency}" ` +
            `data-status="${esc(c.status)}" tabindex="0" role="button" aria-controls="detail-${cellId(c)}" ` +
            `title="${esc(cellTitle(c, flags))}"`;
        const mark = flags.some((f) => f.kind !== 'queued')
          ? `<span class="hm-flag" aria-label="anomaly">!</span>`
          : '';
        if (c.status === 'Over capacity')
          return `<td class="hm-cell ${STATUS_CLASS['Over capacity']}" ${attrs}><span class="hm-over">Over<br>capacity</span></td>`;
        if (c.totalTokensPerS === null || c.status === 'Failed')
          return `<td class="hm-cell hm-box ${STATUS_CLASS.Failed}" ${attrs}><div class="hm-in">${cornerMarks('', mark)}<span class="hm-v">Failed</span><span class="hm-t">${esc(fmtMs(c.ttftMs))}</span></div></td>`;
        const col = cssVars(seqColor(Math.max(c.totalTokensPerS, min), min, max));
        const badge = c.status === 'Requests queued' ? QUEUED_BADGE : '';
        const gpu = perGpu
          ? `<span class="hm-g">${esc(fmtTokSChart(c.totalTokensPerS / perGpu))}/GPU</span>`
          : '';
        return (
          `<td class="hm-cell hm-box ${STATUS_CLASS[c.status]}" style="${col}" ${attrs}><div class="hm-in">${cornerMarks(badge, mark)}` +
          `<span class="hm-v">${esc(fmtTokS(c.totalTokensPerS))}</span>` +
          `<span class="hm-t">${esc(fmtMs(c.ttftMs))}${run ? '' : ' TTFT'}</span>${run ? '' : gpu}</div></td>`
        );
      });
      return `<tr><th scope="row">${esc(contextLabel(x))}</th>${tds.join('')}</tr>`;
    })
    .join('\n');
  // Wide enough for a cell's figures, never wider: a phone scrolls the matrix sideways (context labels stay).
  const minWidth = ` style="${matrixMinWidth(conc.length, !!run)}"`;
  return `<div class="hm-wrap"><table class="heatmap${run ? ' static' : ''}"${run ? '' : ' id="decode-heatmap"'}${minWidth}>
<thead>${head}</thead>
<tbody>
${body}
</tbody></table></div>`;
}

export function heatmapLegend(r: RunResult): string {
  const values = r.decode.map((c) => c.totalTokensPerS).filter((v): v is number => v !== null && v > 0);
  const statuses = new Set(r.decode.map((c) => c.status));
  const scale = values.length
    ? `<div class="lg-scale"><span>${esc(fmtTokSChart(Math.min(...values)))}</span><span class="lg-grad" aria-hidden="true"></span><span>${esc(fmtTokSChart(Math.max(...values)))} tok/s total (log scale)</span></div>`
    : '';
  const items: Array<[CellStatus, string]> = [
    ['Valid', 'measured with all requests running at once'],
    ['Requests queued', 'the server could not run all requests at once; some waited in a queue'],
    ['Over capacity', "not run: this many requests at this context exceed the server's KV cache"],
    ['Failed', 'could not be measured (errors, timeouts); the error is kept'],
  ];
  const chips = items
    .filter(([s]) => s === 'Valid' || statuses.has(s))
    .map(
      ([name, what]) =>
        `<li><span class="lg-chip ${STATUS_CLASS[name]}" aria-hidden="true"></span><b>${name}</b> <span class="muted">${what}</span></li>`,
    )
    .join('');
  const flag = `<li><span class="lg-chip lg-flag" aria-hidden="true">!</span><b>Anomaly</b> <span class="muted">see “Anomalies” below</span></li>`;
  return `<div class="legend">${scale}<ul class="lg-status">${chips}${flag}</ul></div>`;
}

/** "queued" where the cell has room, "Q" where it has not (a phone, compare's side-by-side matrices). */
export const QUEUED_BADGE = `<span class="hm-badge" title="Requests queued"><span class="hm-long">queued</span><span class="hm-short">Q</span></span>`;

// The queued badge and the anomaly "!" share the top of a cell: in one flex row they push apart instead of
// overlapping in narrow cells (the side-by-side matrices of compare), in a band the figures keep clear of.
export function cornerMarks(badge: string, mark: string): string {
  return badge || mark ? `<span class="hm-marks">${badge}${mark}</span>` : '';
}
