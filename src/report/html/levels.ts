import type { RunResult, ServiceLevel } from '../../results/schema.js';
import { fmtMs, fmtTokS } from '../../format/index.js';
import { STATUS_CLASS } from '../../cell-rules.js';
import {
  cacheText,
  fmtRate,
  levelNote,
  levelRowsView,
  msFigure,
  searchText,
  secondsFigure,
  shareText,
  tokenMsFigure,
  type LevelRowView,
  type LevelView,
} from '../levels-model.js';
import { SERIES } from './color.js';
import { esc, escBreakable, escText } from './escape.js';
import { lineChartSvg, type LinePoint, type RefLine } from './line-chart.js';
import { card } from './page.js';

// The load levels in HTML (docs/workloads.md "Reports"): per row a table of its levels (it scrolls sideways in its
// card where the page is narrower), each level's status in words where it is not Valid, the rate search's steps,
// and two charts of its rates: TTFT p50/p90/p99 against the achieved rate with the service level's bound, and
// goodput against the offered rate with the line y = x that a server meeting the level for every arrival follows.

/** The element id of a level's row in the table, for the anomalies' links. */
export const levelId = (key: string): string => `level-${key.replace(/[^A-Za-z0-9]+/g, '-')}`;

// Only a page with levels carries these rules (a page without them stays as it was, byte for byte).
export const LEVELS_CSS = `
table.data.levels{font-size:12.5px}
table.data.levels td,table.data.levels th{text-align:right;padding-left:4px;padding-right:4px}
table.data.levels td:first-child,table.data.levels th:first-child,table.data.levels td.verdict,table.data.levels td.status,table.data.levels td.cache{text-align:left}
table.data.levels tr td:nth-child(4){color:inherit;font-weight:inherit}
table.data.levels td.verdict,table.data.levels td.status,table.data.levels td.cache{white-space:normal;min-width:5.5em}
table.data.levels td.cache{min-width:9em}
table.data.levels td.v-meets{color:var(--ok);font-weight:600}
table.data.levels td.v-fails{color:var(--err);font-weight:600}
table.data.levels td.v-close{color:var(--warn);font-weight:600}
table.data.levels tr.st-queued td.status,table.data.levels tr.st-client-bound td.status{color:var(--warn);font-weight:600}
table.data.levels tr.st-failed td.status{color:var(--err);font-weight:600}
.level-row{margin-top:18px}
.level-row h3{margin:0 0 8px}
.level-row h4{margin:16px 0 4px}
`;

const HEADS = [
  'Load',
  'Offered req/s',
  'Achieved req/s',
  'Goodput req/s',
  'Met it (95% interval)',
  'Verdict',
  'TTFT p50 ms',
  'TTFT p90 ms',
  'TTFT p99 ms',
  'ITL p50 ms',
  'ITL p99 ms',
  'E2E p50 s',
  'E2E p99 s',
  'Output tok/s',
  'Prefix cache served',
  'Client lag p99 ms',
  'Status',
];

const VERDICT_CLASS: Record<string, string> = {
  meets: 'v-meets',
  fails: 'v-fails',
  'too close to call': 'v-close',
};

function levelRow(v: LevelView): string {
  const l = v.level;
  const td = (label: string, value: string, cls = '') =>
    `<td data-label="${esc(label)}"${cls ? ` class="${cls}"` : ''}>${esc(value)}</td>`;
  return (
    `<tr id="${levelId(l.key)}" class="${STATUS_CLASS[l.status]}"><td>${esc(v.load)}</td>` +
    td('Offered', fmtRate(l.offeredRate)) +
    td('Achieved', fmtRate(l.achievedRate)) +
    td('Goodput', fmtRate(v.goodput)) +
    td('Met it', shareText(v)) +
    td('Verdict', v.verdict, `verdict ${VERDICT_CLASS[v.verdict] ?? ''}`.trim()) +
    td('TTFT p50 ms', msFigure(l.ttftMs.p50)) +
    td('TTFT p90 ms', msFigure(l.ttftMs.p90)) +
    td('TTFT p99 ms', msFigure(l.ttftMs.p99)) +
    td('ITL p50 ms', tokenMsFigure(l.itlMs.p50)) +
    td('ITL p99 ms', tokenMsFigure(l.itlMs.p99)) +
    td('E2E p50 s', secondsFigure(l.e2eMs.p50)) +
    td('E2E p99 s', secondsFigure(l.e2eMs.p99)) +
    td('Output tok/s', fmtTokS(l.totalTokensPerS)) +
    td('Prefix cache', cacheText(l), 'cache') +
    td('Client lag p99 ms', tokenMsFigure(l.lag.p99Ms)) +
    `<td class="status" title="${esc(l.evidence ?? '')}">${esc(l.status)}</td></tr>`
  );
}

// TTFT ticks in seconds, short enough for a phone's margin: 0.2 s, 1 s, 10 s.
const seconds = (ms: number): string => `${Number((ms / 1000).toPrecision(2))} s`;
const rate = (v: number): string => String(Number(v.toPrecision(3)));

/** The rate levels a chart can place: open or trace, measured; a Client-bound one is drawn apart, unjoined. */
const charted = (row: LevelRowView) =>
  row.levels.filter(
    (v) =>
      v.level.load.model !== 'closed' && v.level.status !== 'Failed' && v.level.status !== 'Client-bound',
  );
const clientBound = (row: LevelRowView, point: (v: LevelView) => LinePoint | undefined) => {
  const points = row.levels
    .filter((v) => v.level.status === 'Client-bound')
    .map(point)
    .filter((p): p is LinePoint => !!p);
  return points.length
    ? [{ name: 'client-bound (not judged)', color: SERIES[9]!, dotsOnly: true, points }]
    : [];
};
const askedRate = (v: LevelView): string =>
  rate(v.level.load.model === 'open' ? v.level.load.rate : v.level.offeredRate);

const statusNote = (v: LevelView) =>
  v.level.status === 'Client-bound' ? 'Client-bound, not judged' : v.level.status;

function latencyChart(row: LevelRowView, slo: ServiceLevel): string {
  const has = (v: LevelView) => v.level.ttftMs.p50 !== null && v.level.achievedRate > 0;
  const levels = charted(row).filter(has);
  if (!levels.length) return '';
  const which = [
    ['p50', 'TTFT p50'],
    ['p90', 'TTFT p90'],
    ['p99', 'TTFT p99'],
  ] as const;
  const point = (v: LevelView, q: 'p50' | 'p90' | 'p99', name: string, label: boolean): LinePoint => ({
    x: v.level.achievedRate,
    y: v.level.ttftMs[q]!,
    ...(label ? { label: askedRate(v) } : {}),
    tip: `${v.load}, achieved ${fmtRate(v.level.achievedRate)} req/s: ${name} ${fmtMs(v.level.ttftMs[q])} (${statusNote(v)})`,
  });
  const series = [
    ...which.map(([q, name], i) => ({
      name,
      color: SERIES[i]!,
      points: levels.filter((v) => (v.level.ttftMs[q] ?? 0) > 0).map((v) => point(v, q, name, i === 0)),
    })),
    ...clientBound(row, (v) => (has(v) ? { ...point(v, 'p50', 'TTFT p50', true), hollow: true } : undefined)),
  ];
  const refs: RefLine[] =
    slo.ttftMs !== undefined
      ? [{ kind: 'h', y: slo.ttftMs, name: `service level: first token within ${seconds(slo.ttftMs)}` }]
      : [];
  return (
    `<h4>Latency against achieved rate</h4>` +
    lineChartSvg({
      series,
      xKind: 'linear',
      yKind: 'log',
      refs,
      xLabel: 'achieved req/s →',
      yLabel: 'TTFT (log scale)',
      xFormat: rate,
      yFormat: seconds,
      ariaLabel: `TTFT p50, p90 and p99 against the achieved rate, ${row.label}`,
    })
  );
}

function goodputChart(row: LevelRowView): string {
  const levels = charted(row).filter((v) => v.level.offeredRate > 0);
  if (!levels.length) return '';
  const tip = (v: LevelView, what: string) =>
    `${v.load}, offered ${fmtRate(v.level.offeredRate)} req/s: ${what} (${statusNote(v)})`;
  const series = [
    {
      name: 'goodput (met the service level)',
      color: SERIES[2]!,
      points: levels
        .filter((v) => v.goodput !== null)
        .map((v): LinePoint => ({
          x: v.level.offeredRate,
          y: v.goodput!,
          label: askedRate(v),
          tip: tip(v, `goodput ${fmtRate(v.goodput)} req/s, ${shareText(v)} met it`),
        })),
    },
    {
      name: 'achieved (completed)',
      color: SERIES[0]!,
      dashed: true,
      points: levels.map((v): LinePoint => ({
        x: v.level.offeredRate,
        y: v.level.achievedRate,
        hollow: true,
        tip: tip(v, `achieved ${fmtRate(v.level.achievedRate)} req/s`),
      })),
    },
    ...clientBound(row, (v) =>
      v.level.offeredRate > 0
        ? {
            x: v.level.offeredRate,
            y: v.level.achievedRate,
            label: askedRate(v),
            hollow: true,
            tip: tip(v, `achieved ${fmtRate(v.level.achievedRate)} req/s`),
          }
        : undefined,
    ),
  ].filter((s) => s.points.length);
  return (
    `<h4>Goodput against offered rate</h4>` +
    lineChartSvg({
      series,
      xKind: 'linear',
      refs: [{ kind: 'diagonal', name: 'y = x: every arrival served and meeting it' }],
      xLabel: 'offered req/s →',
      yLabel: 'req/s',
      xFormat: rate,
      yFormat: rate,
      ariaLabel: `Goodput and achieved rate against the offered rate, ${row.label}`,
    })
  );
}

function rowHtml(row: LevelRowView, slo: ServiceLevel): string {
  const notes = [
    ...row.levels.map(levelNote).filter((n): n is string => !!n),
    ...(row.search ? [searchText(row.search, slo)] : []),
  ];
  const table = `<div class="tbl-wrap"><table class="data levels"><thead><tr>${HEADS.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead><tbody>${row.levels
    .map(levelRow)
    .join('')}</tbody></table></div>`;
  return (
    `<div class="level-row" data-row="${esc(row.row)}"><h3>${escBreakable(row.label)}</h3>${table}` +
    (notes.length ? `<ul class="notes">${notes.map((n) => `<li>${escText(n)}</li>`).join('')}</ul>` : '') +
    latencyChart(row, slo) +
    goodputChart(row) +
    `</div>`
  );
}

/** The levels card; empty for a result without load levels. */
export function levelsCard(r: RunResult, slo: ServiceLevel): string {
  const rows = levelRowsView(r, slo);
  if (!rows.length) return '';
  return card(
    'levels',
    'Load levels',
    "Each level one window of arrivals, judged under the answer's service level. Goodput: arrivals that met it, per second of the window; prefix cache: prompt tokens the server served from cache of those the workload made cacheable.",
    rows.map((row) => rowHtml(row, slo)).join(''),
  );
}
