import { fmtMs, fmtTokS, fmtTokSChart } from '../format/index.js';
import { esc } from '../report/html/escape.js';
import { linearScale, n1, text, tickLabel } from '../report/html/svg.js';
import type { HistoryPoint } from './history.js';
import { href } from './shell.js';

// A figure across runs: one point per run in start order, its 95% interval as a whisker where the result has
// one, the line broken where a run did not measure the cell. Each point links to its run's report.

export function fmtFigure(v: number | null | undefined, unit: string): string {
  return unit === 'ms' ? fmtMs(v) : fmtTokS(v);
}

export const HELD_TIP = " · stream held back on the way: not the server's timing";

// Hollow: Requests queued; a square: a figure a proxy's bursts timed, not the server (HELD_TIP).
function marker(cx: number, cy: number, p: HistoryPoint): string {
  const paint =
    p.status === 'Requests queued'
      ? 'fill="var(--bg)" stroke="var(--s1)" stroke-width="2"'
      : 'fill="var(--s1)"';
  return p.held
    ? `<rect x="${n1(cx - 4.5)}" y="${n1(cy - 4.5)}" width="9" height="9" ${paint}/>`
    : `<circle cx="${n1(cx)}" cy="${n1(cy)}" r="4.5" ${paint}/>`;
}

const DAY_MS = 86_400_000;
const CHAR_PX = 7; // a 12-unit tick label's digit, and a little air
// Each way to write a start, coarsest first: the ticks take the first that tells the shown runs apart.
const DATE = (t: string) => t.slice(0, 10);
const DAY_TIME = (t: string) => `${t.slice(5, 10)} ${t.slice(11, 16)}`;
const DAY_SECONDS = (t: string) => `${t.slice(5, 10)} ${t.slice(11, 19)}`;
const TIME = (t: string) => t.slice(11, 16);
const SECONDS = (t: string) => t.slice(11, 19);

/**
 * The x axis's tick labels (undefined: no tick for that run), and the day when every run started on it (the
 * axis names it once). Runs within two days read as times of day (with the date where they cross midnight),
 * longer spans as dates; either becomes finer (minutes, seconds) until the shown ticks differ, and ticks thin
 * out until their labels fit the room between them (band: the room one run has; least: the room a tick wants).
 */
export function runTicks(
  startedAt: readonly string[],
  band: number,
  least: number,
): { labels: Array<string | undefined>; day?: string } {
  const times = startedAt.map((t) => Date.parse(t)).filter((t) => !Number.isNaN(t));
  const iso = startedAt.map((t) => (Number.isNaN(Date.parse(t)) ? '' : new Date(t).toISOString()));
  const span = times.length ? Math.max(...times) - Math.min(...times) : 0;
  const days = new Set(iso.filter(Boolean).map(DATE));
  const oneDay = days.size === 1 && times.length > 1;
  const ways = oneDay
    ? [TIME, SECONDS]
    : span < 2 * DAY_MS
      ? [DAY_TIME, DAY_SECONDS]
      : [DATE, DAY_TIME, DAY_SECONDS];
  for (let every = Math.max(1, Math.ceil(least / Math.max(1, band))); ; every++) {
    const shown = iso.map((_, i) => i % every === 0);
    const write =
      ways.find((w) => {
        const ls = iso.filter((t, i) => shown[i] && t).map(w);
        return new Set(ls).size === ls.length;
      }) ?? ways[ways.length - 1]!;
    const labels = iso.map((t, i) => (shown[i] ? (t ? write(t) : '') : undefined));
    const widest = Math.max(...labels.map((l) => (l ?? '').length));
    if (widest * CHAR_PX + 8 <= band * every || every >= iso.length)
      return { labels, ...(oneDay ? { day: [...days][0]! } : {}) };
  }
}

export function historyChartSvg(points: HistoryPoint[], unit: string, label: string, W: number): string {
  const narrow = W < 600;
  const H = narrow ? 300 : 340;
  const m = { l: narrow ? 48 : 64, r: 16, t: 28, b: 44 };
  const measured = points.filter((p) => p.value !== null);
  if (!measured.length) return '';
  const top = Math.max(...measured.map((p) => Math.max(p.value!, p.interval?.[1] ?? 0)));
  const y = linearScale(top * 1.08, H - m.b, m.t, narrow ? 4 : 5);
  const band = (W - m.l - m.r) / Math.max(1, points.length);
  const x = (i: number) => m.l + band * (i + 0.5);
  const yFmt = unit === 'ms' ? (v: number) => fmtMs(v).replace(' ms', '') : fmtTokSChart;
  const ticks = runTicks(
    points.map((p) => p.run.startedAt),
    (W - m.l - m.r) / Math.max(1, points.length),
    narrow ? 80 : 96,
  );
  const grid =
    y.ticks
      .map(
        (t) =>
          `<line class="grid" x1="${m.l}" x2="${W - m.r}" y1="${n1(y(t))}" y2="${n1(y(t))}"/>` +
          text(m.l - 6, y(t) + 4, tickLabel(yFmt)(t), 'class="tick" text-anchor="end"'),
      )
      .join('') +
    ticks.labels
      .map((l, i) =>
        l === undefined
          ? ''
          : text(x(i), H - m.b + 18, l || `run ${i + 1}`, 'class="tick" text-anchor="middle"'),
      )
      .join('');
  // Segments join consecutive measured runs only.
  let d = '';
  let open = false;
  points.forEach((p, i) => {
    if (p.value === null) {
      open = false;
      return;
    }
    d += `${open ? 'L' : 'M'}${n1(x(i))},${n1(y(p.value))}`;
    open = true;
  });
  const dots = points
    .map((p, i) => {
      const cx = x(i);
      const title = p.run.title || p.run.model;
      const when = p.run.startedAt.slice(0, 16).replace('T', ' ');
      const link = esc(href('/report', [['run', p.run.id]]));
      if (p.value === null)
        return `<a href="${link}" data-point="${esc(p.run.id)}" data-status="${esc(p.status ?? 'not run')}"><title>${esc(
          `${title} · ${when}: ${p.status ?? 'not measured in this run'}`,
        )}</title>${text(cx, H - m.b - 6, '×', 'class="sub" text-anchor="middle"')}</a>`;
      const iv = p.interval;
      const tip = `${title} · ${when}: ${fmtFigure(p.value, unit)}${
        iv ? ` (95% interval ${fmtFigure(iv[0], unit)} – ${fmtFigure(iv[1], unit)})` : ''
      }${p.status === 'Requests queued' ? ' · Requests queued' : ''}${p.held ? HELD_TIP : ''}`;
      const whisker = iv
        ? `<path class="iv" d="M${n1(cx)},${n1(y(iv[0]))}V${n1(y(iv[1]))}M${n1(cx - 4)},${n1(y(iv[0]))}h8M${n1(cx - 4)},${n1(y(iv[1]))}h8"/>`
        : '';
      return `<a href="${link}" class="pt" data-point="${esc(p.run.id)}" data-value="${p.value}"${
        iv ? ` data-lo="${iv[0]}" data-hi="${iv[1]}"` : ''
      }${p.held ? ' data-held="true"' : ''}><title>${esc(tip)}</title>${whisker}${marker(cx, y(p.value), p)}</a>`;
    })
    .join('');
  return `<svg class="chart history" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(label)} across runs">
${grid}<line class="axis" x1="${m.l}" x2="${W - m.r}" y1="${H - m.b}" y2="${H - m.b}"/>
${text(8, m.t - 12, `${label}`, 'class="axl"')}${text(W - m.r, H - 6, `run start${ticks.day ? `, ${ticks.day}` : ''} (UTC) →`, 'class="axl" text-anchor="end"')}
<path d="${d}" fill="none" stroke="var(--s1)" stroke-width="2" stroke-linejoin="round"/>${dots}</svg>`;
}
