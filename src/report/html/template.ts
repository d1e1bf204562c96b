import { flagLegends, flaggedFigures } from '../flags.js';
import type { DecodeCell, RunResult } from '../../results/schema.js';
import { anomaliesByCell, findAnomalies, prefillOutlierContexts, type Anomaly } from '../anomalies.js';
import { contextLabel, fmtMs, fmtTokS, fmtTokSChart } from '../../format/index.js';
import {
  MEASUREMENT_HEADERS,
  MEDIANS_NOTE,
  measurementRows,
  metadata,
  peakCell,
  peakWhere,
  prefillPoints,
  reportTitle,
  singleUserNote,
  statusNotes,
  subtitle,
  TTFT_NOTE,
} from '../model.js';
import { cellDetailHtml } from './details.js';
import { givenAnalysis } from '../../answer/analysis.js';
import { levelId, levelsCard, LEVELS_CSS } from './levels.js';
import { answerHtml } from '../answer-view.js';
import type { AnswerOptions } from '../index.js';
import { esc, escText } from './escape.js';
import { cellId, heatmapHtml, heatmapLegend } from './heatmap.js';
import { card, htmlPage, topHeader, type PageOptions } from './page.js';
import { paretoSvg } from './pareto.js';
import { prefillChartSvg } from './prefill-chart.js';
import { CELL_STATUSES, cellKey, type CellStatus, type LevelStatus, STATUS_CLASS } from '../../cell-rules.js';

function kpi(k: string, v: string, d: string, cls = ''): string {
  return `<div class="kpi ${cls}"><div class="k">${esc(k)}</div><div class="v">${v}</div><div class="d">${esc(d)}</div></div>`;
}

function kpis(r: RunResult, anomalies: Anomaly[], gpus?: number): string {
  const valid = r.decode.filter((c) => c.status === 'Valid');
  const pool = valid.length ? valid : r.decode.filter((c) => c.status !== 'Failed');
  const out: string[] = [];
  const peak = peakCell(r.decode);
  if (peak)
    out.push(
      kpi(
        'Peak throughput',
        `${esc(fmtTokS(peak.totalTokensPerS))} <small>tok/s</small>`,
        `${peakWhere(peak)}${gpus ? ` · ${fmtTokSChart(peak.totalTokensPerS! / gpus)} tok/s per GPU` : ''}${
          peak.status === 'Valid' ? ' · Valid cells only' : ''
        }`,
      ),
    );
  const single = pool
    .filter((c) => c.concurrency === Math.min(...pool.map((x) => x.concurrency)))
    .sort((a, b) => a.contextTokens - b.contextTokens)[0];
  if (single)
    out.push(
      kpi(
        'Single-stream speed',
        `${esc(fmtTokS(single.perRequestTokensPerS))} <small>tok/s</small>`,
        `per request at ${contextLabel(single.contextTokens)} × ${single.concurrency} · TTFT ${fmtMs(single.ttftMs)}`,
      ),
    );
  const outliers = prefillOutlierContexts(anomalies);
  const pre = prefillPoints(r).filter((p) => p.tokensPerS !== null && !outliers.has(p.contextTokens));
  const bestPre = pre.reduce<(typeof pre)[number] | undefined>(
    (b, p) => (!b || p.tokensPerS! > b.tokensPerS! ? p : b),
    undefined,
  );
  if (bestPre)
    out.push(
      kpi(
        'Peak prefill',
        `${esc(fmtTokSChart(bestPre.tokensPerS))} <small>tok/s</small>`,
        `at ${contextLabel(bestPre.contextTokens)} · TTFT ${fmtMs(bestPre.ttftMs)}`,
      ),
    );
  const count = (s: DecodeCell['status']) => r.decode.filter((c) => c.status === s).length;
  const levels = r.levels ?? [];
  // A run of load levels alone has no matrix: its card would say 0 cells.
  if (r.decode.length || !levels.length)
    out.push(
      kpi(
        'Matrix',
        `${r.decode.length} <small>cells</small>`,
        `${count('Valid')} valid · ${count('Requests queued')} queued · ${count('Over capacity')} over capacity · ${count('Failed')} failed`,
      ),
    );
  if (levels.length) {
    const n = (s: LevelStatus) => levels.filter((l) => l.status === s).length;
    out.push(
      kpi(
        'Load levels',
        `${levels.length} <small>level${levels.length === 1 ? '' : 's'}</small>`,
        `${n('Valid')} valid · ${n('Requests queued')} queued · ${n('Client-bound')} client-bound · ${n('Failed')} failed`,
      ),
    );
  }
  const flagged = anomalies.filter((a) => a.severity !== 'info').length;
  out.push(
    kpi(
      'Anomalies',
      `${flagged}`,
      flagged ? 'flagged figures, explained below' : 'nothing unusual in the figures',
      flagged ? 'warn' : '',
    ),
  );
  return `<div class="kpis">${out.join('')}</div>`;
}

function anomalyList(list: Anomaly[]): string {
  const tag: Record<Anomaly['kind'], string> = {
    'prefill-outlier': 'prefill outlier',
    'prefill-repeat-outlier': 'prefill repeats',
    'ttft-outlier': 'TTFT outlier',
    'throughput-drop': 'throughput drop',
    failed: 'failed',
    queued: 'requests queued',
    capacity: 'capacity check',
    'client-bound': 'client was the bottleneck',
    'machine-busy': 'machine busy',
    'held-stream': 'stream held on the way',
    resent: 'sent again',
    'estimated-tokens': 'estimated token split',
    errors: 'errors',
    stall: 'stall',
    warning: 'note',
    unfinished: 'unfinished at the drain',
    'prefix-cache': 'prefix cache',
    behind: 'could not keep up',
  };
  return `<ol class="anomalies">${list
    .map((a) => {
      const link =
        a.phase === 'decode' && a.contextTokens !== undefined && a.concurrency !== undefined
          ? ` <a href="#decode" data-goto="${cellId({ contextTokens: a.contextTokens, concurrency: a.concurrency })}">show cell</a>`
          : a.phase === 'prefill'
            ? ` <a href="#prefill">show chart</a>`
            : a.phase === 'level' && a.level
              ? ` <a href="#${levelId(a.level)}">show level</a>`
              : '';
      return `<li class="sev-${a.severity}" data-anomaly="${a.kind}"><span class="tag">${esc(tag[a.kind])}</span>${escText(a.text)}${link}</li>`;
    })
    .join('')}</ol>`;
}

function measurementsTable(r: RunResult, anomalies: Anomaly[]): string {
  // Flag the figure an anomaly is about, in the row it belongs to.
  const flagged = flaggedFigures(anomalies);
  const rows = measurementRows(r)
    .map((row) => {
      const st = row[3] as CellStatus;
      // A measured row keeps the page's colours; the others take their status's.
      const cls = st === 'Valid' || !CELL_STATUSES.includes(st) ? '' : STATUS_CLASS[st];
      const key = row.slice(0, 3).join('|');
      return `<tr class="${cls}">${row
        .map((v, i) =>
          flagged.has(`${key}|${i}`) ? `<td class="flag">${esc(v)} ⚠</td>` : `<td>${esc(v)}</td>`,
        )
        .join('')}</tr>`;
    })
    .join('\n');
  const table = `<table class="data" id="all-measurements"><thead><tr>${MEASUREMENT_HEADERS.map(
    (h) => `<th scope="col">${esc(h)}</th>`,
  ).join('')}</tr></thead><tbody>
${rows}
</tbody></table>`;
  return `<div class="tbl-wrap">${table}</div>${flagLegends(anomalies)
    .map((l) => `<p class="note">${esc(l)}</p>`)
    .join('')}`;
}

type Anomalies = ReturnType<typeof findAnomalies>;

export function renderHtml(r: RunResult, page: PageOptions = {}, opts: AnswerOptions = {}): string {
  const title = reportTitle(r);
  const gpus = r.hardware.gpuCount && r.hardware.gpuCount > 1 ? r.hardware.gpuCount : undefined;
  const anomalies = findAnomalies(r);
  const a = givenAnalysis(r, opts);
  const parts: string[] = [
    topHeader('Speed test matrix', title, subtitle(r)),
    answerHtml(a, a.whatIf),
    kpis(r, anomalies, gpus),
    metadataCards(r),
  ];
  if (r.launchCommand)
    parts.push(
      card(
        'launch-command',
        'Launch command',
        'secrets replaced by <redacted>',
        `<pre class="cmd"><code>${esc(r.launchCommand)}</code></pre>`,
      ),
    );
  const pre = prefillPoints(r);
  if (pre.length) parts.push(prefillCard(pre, anomalies));
  if (r.decode.length) parts.push(...decodeCards(r, anomalies, gpus));
  const levels = levelsCard(r, a.slo);
  if (levels) parts.push(levels);
  if (anomalies.length)
    parts.push(
      card('anomalies', 'Anomalies', 'Figures that deserve a second look, and why.', anomalyList(anomalies)),
    );
  const allNotes = [
    ...statusNotes([...r.decode.map((c) => c.status), ...r.prefill.map((p) => p.status)]),
    ...singleUserNote(r),
  ];
  parts.push(
    card(
      'all-measurements-card',
      'All measurements',
      MEDIANS_NOTE,
      measurementsTable(r, anomalies) + notesList(allNotes),
      'allm',
    ),
  );
  const css = levels ? { css: `${page.css ?? ''}${LEVELS_CSS}` } : {};
  return htmlPage(`${title} · Speed test matrix`, parts.join('\n'), { ...page, ...css });
}

const notesList = (notes: string[]): string =>
  notes.length ? `<ul class="notes">${notes.map((n) => `<li>${escText(n)}</li>`).join('')}</ul>` : '';

function metadataCards(r: RunResult): string {
  const meta = metadata(r)
    .filter((s) => s.rows.length)
    .map(
      (s) =>
        `<section class="card" id="${s.name.toLowerCase()}"><h2>${s.name}</h2><dl class="kv" style="margin-top:10px">${s.rows
          .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${escText(v)}</dd>`)
          .join('')}</dl></section>`,
    )
    .join('');
  return `<div class="meta">${meta}</div>`;
}

function prefillCard(pre: ReturnType<typeof prefillPoints>, anomalies: Anomalies): string {
  const outliers = prefillOutlierContexts(anomalies);
  return card(
    'prefill',
    'Prefill',
    'Prompt tok/s by context length: a cold prompt, timed to its first token. TTFT under each context.',
    prefillChartSvg(pre, outliers) +
      (outliers.size ? `<p class="detail-hint">Bars in amber are outliers: see Anomalies.</p>` : ''),
  );
}

/** The decode matrix with its cell details, and the Pareto chart when there is one. */
function decodeCards(r: RunResult, anomalies: Anomalies, gpus: number | undefined): string[] {
  const byCell = anomaliesByCell(anomalies);
  const details = r.decode
    .map((c) => cellDetailHtml(c, byCell.get(cellKey(c.contextTokens, c.concurrency)) ?? [], gpus))
    .join('\n');
  const notes = [...statusNotes(r.decode.map((c) => c.status)), TTFT_NOTE];
  const cards = [
    card(
      'decode',
      'Sustained decode matrix',
      'Total tok/s · rows are context length, columns are simultaneous requests.',
      heatmapHtml(r, byCell, gpus) +
        heatmapLegend(r) +
        notesList(notes) +
        `<p class="detail-hint">Click or press Enter on a cell for percentiles, errors, server samples and cache/queue evidence.</p>` +
        `<div class="detail-host">${details}</div>`,
    ),
  ];
  const pareto = paretoSvg(r);
  if (pareto)
    cards.push(
      card(
        'pareto',
        'Throughput vs per-request speed',
        `Each line is one context; points are concurrency levels (hollow: Requests queued). Up and right is better.`,
        pareto,
      ),
    );
  return cards;
}
