import { esc, escText } from './escape.js';
import { linearScale, logScale, n1, text, tickLabel, twoWidths, type Scale } from './svg.js';

// A generic multi-series line chart (Pareto, compare prefill overlay): numeric log-x or categorical x.
export interface LinePoint {
  x: number; // value on a log axis, or category index
  y: number;
  order?: number; // drawing order along the line (default: x)
  label?: string; // drawn beside the point
  hollow?: boolean;
  ring?: boolean; // an outline around the dot, which keeps its series colour (the sweep's frontier points)
  tip: string;
}
export interface Series {
  name: string;
  color: string;
  points: LinePoint[];
  dashed?: boolean;
  dotsOnly?: boolean; // points without a line (a scatter: the sweep's configurations)
  lineOnly?: boolean; // a line through points another series draws (the sweep's frontier)
}
// A reference line drawn dashed under the series and named in the legend: a bound (a horizontal line at y) or the
// diagonal y = x (a rate against a rate).
export type RefLine = { kind: 'h'; y: number; name: string } | { kind: 'diagonal'; name: string };

export interface LineChartOptions {
  series: Series[];
  xKind: 'log' | 'category' | 'linear'; // linear: from 0
  yKind?: 'linear' | 'log'; // default linear, from 0
  refs?: RefLine[];
  categories?: string[];
  xLabel: string;
  yLabel: string;
  xFormat: (v: number) => string;
  yFormat: (v: number) => string;
  ariaLabel: string;
  height?: number;
}

export function lineChartSvg(o: LineChartOptions): string {
  if (!o.series.some((s) => s.points.length)) return '';
  const legend = o.series
    .map(
      (s) =>
        `<li><svg width="22" height="10" aria-hidden="true"><line x1="1" x2="21" y1="5" y2="5" stroke="${s.color}" stroke-width="3"${
          s.dashed ? ' stroke-dasharray="5 3"' : ''
        }/></svg><span>${escText(s.name)}</span></li>`,
    )
    .join('');
  const refs = (o.refs ?? [])
    .map(
      (r) =>
        `<li><svg width="22" height="10" aria-hidden="true"><line x1="1" x2="21" y1="5" y2="5" stroke="var(--muted)" stroke-width="1.5" stroke-dasharray="3 3"/></svg><span>${escText(r.name)}</span></li>`,
    )
    .join('');
  return `<figure class="linechart">${twoWidths((w) => drawLines(o, w))}<ul class="series-legend">${legend}${refs}</ul></figure>`;
}

// The drawing's frame at one width: narrow (a phone) is shorter, with smaller margins.
interface Frame {
  W: number;
  H: number;
  narrow: boolean;
  m: { l: number; r: number; t: number; b: number };
}

interface XAxis {
  x: (v: number) => number;
  ticks: Array<[number, string]>;
  top: number; // a linear axis's last tick; Infinity on the others
}

function drawLines(o: LineChartOptions, W: number): string {
  const narrow = W < 600;
  const H = narrow ? Math.round((o.height ?? 360) * 0.8) : (o.height ?? 360);
  const m = narrow ? { l: 44, r: 10, t: 30, b: 44 } : { l: 64, r: 24, t: 30, b: 48 };
  const f: Frame = { W, H, narrow, m };
  const all = o.series.flatMap((s) => s.points);
  const refs = o.refs ?? [];
  const y = yScale(o, all, refs, f);
  const xa = xAxis(o, all, f);
  const x = xa.x;
  const sorted = o.series.map((s) => [...s.points].sort((a, b) => (a.order ?? a.x) - (b.order ?? b.x)));
  const segments = o.series.flatMap((s, si) =>
    s.dotsOnly
      ? []
      : sorted[si]!.slice(1).map((p, i): Segment => {
          const q = sorted[si]![i]!;
          return [x(q.x), y(q.y), x(p.x), y(p.y)];
        }),
  );
  const refSegments = refs.map((r): Segment => {
    if (r.kind === 'h') return [m.l, y(r.y), W - m.r, y(r.y)];
    // y = x up to where it leaves the plot (both axes linear from 0)
    const end = Math.min(xa.top, y.ticks[y.ticks.length - 1]!);
    return [x(0), y(0), x(end), y(end)];
  });
  const labels = placeLabels(
    sorted.flat().map((p) => ({ px: x(p.x), py: y(p.y), label: p.label })),
    { x0: m.l, x1: W - m.r, y0: m.t - 6, y1: H - m.b - 2 },
    [...segments, ...refSegments],
  );
  const refLines = refSegments
    .map(
      ([x0, y0, x1, y1]) =>
        `<line class="ref" x1="${n1(x0)}" y1="${n1(y0)}" x2="${n1(x1)}" y2="${n1(y1)}" stroke="var(--muted)" stroke-width="1.5" stroke-dasharray="5 4"/>`,
    )
    .join('');
  const lines = seriesSvg(o.series, sorted, x, y, narrow);
  return `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(o.ariaLabel)}">
${gridSvg(o, f, y, xa)}<line class="axis" x1="${m.l}" x2="${W - m.r}" y1="${H - m.b}" y2="${H - m.b}"/>
${text(narrow ? 6 : 16, m.t - 12, o.yLabel, 'class="axl"')}${text(W - m.r, H - 8, o.xLabel, 'class="axl" text-anchor="end"')}
${refLines ? `${refLines}\n` : ''}${lines}
<g class="labels">${labels.map((l) => text(l.x, l.y, l.label, 'class="pl"')).join('')}</g></svg>`;
}

// Linear from 0 past the highest point or bound, or log from the lowest positive one.
function yScale(o: LineChartOptions, all: readonly LinePoint[], refs: readonly RefLine[], f: Frame): Scale {
  const { H, m } = f;
  const yTop = Math.max(...all.map((p) => p.y), ...refs.map((r) => (r.kind === 'h' ? r.y : 0)));
  return o.yKind === 'log'
    ? logScale(
        Math.min(
          ...all.map((p) => p.y).filter((v) => v > 0),
          ...refs.map((r) => (r.kind === 'h' ? r.y : Infinity)),
        ),
        yTop,
        H - m.b,
        m.t,
      )
    : linearScale(yTop * 1.08, H - m.b, m.t, 5);
}

function xAxis(o: LineChartOptions, all: readonly LinePoint[], f: Frame): XAxis {
  const { W, m, narrow } = f;
  if (o.xKind === 'linear') {
    const s = linearScale(Math.max(...all.map((p) => p.x)) * 1.08, m.l + 8, W - m.r - 8, narrow ? 4 : 6);
    return {
      x: s,
      ticks: s.ticks.map((t) => [t, tickLabel(o.xFormat)(t)]),
      top: s.ticks[s.ticks.length - 1]!,
    };
  }
  if (o.xKind === 'log') {
    const xs = all.map((p) => p.x).filter((v) => v > 0);
    const s = logScale(Math.min(...xs), Math.max(...xs), m.l + 8, W - m.r - 8);
    return { x: s, ticks: s.ticks.map((t) => [t, tickLabel(o.xFormat)(t)]), top: Infinity };
  }
  const cats = o.categories ?? [];
  const band = (W - m.l - m.r) / Math.max(1, cats.length);
  return { x: (i: number) => m.l + band * (i + 0.5), ticks: cats.map((c, i) => [i, c]), top: Infinity };
}

// The y grid with its labels, then the x grid (none across categories) with the labels a narrow chart has room for.
function gridSvg(o: LineChartOptions, f: Frame, y: Scale, xa: XAxis): string {
  const { W, H, m, narrow } = f;
  const x = xa.x;
  let lastTick = -Infinity;
  const roomFor = (px: number, label: string) => {
    if (!narrow) return true;
    if (px - lastTick < label.length * 7 + 6) return false;
    lastTick = px;
    return true;
  };
  return (
    y.ticks
      .map(
        (t) =>
          `<line class="grid" x1="${m.l}" x2="${W - m.r}" y1="${n1(y(t))}" y2="${n1(y(t))}"/>` +
          text(m.l - 8, y(t) + 4, tickLabel(o.yFormat)(t), 'class="tick" text-anchor="end"'),
      )
      .join('') +
    xa.ticks
      .map(
        ([v, l]) =>
          (o.xKind !== 'category'
            ? `<line class="grid" x1="${n1(x(v))}" x2="${n1(x(v))}" y1="${m.t}" y2="${H - m.b}"/>`
            : '') +
          (roomFor(x(v), l) ? text(x(v), H - m.b + 18, l, 'class="tick" text-anchor="middle"') : ''),
      )
      .join('')
  );
}

function seriesSvg(
  series: readonly Series[],
  sorted: readonly LinePoint[][],
  x: (v: number) => number,
  y: (v: number) => number,
  narrow: boolean,
): string {
  return (
    series
      .map((s, si) => {
        const pts = sorted[si]!;
        const d = pts.map((p, i) => `${i ? 'L' : 'M'}${n1(x(p.x))},${n1(y(p.y))}`).join('');
        const dots = s.lineOnly ? '' : pts.map((p) => dotSvg(s, p, x, y)).join('');
        const path = s.dotsOnly
          ? ''
          : `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2.2"${
              s.dashed ? ' stroke-dasharray="6 4"' : ''
            } stroke-linejoin="round"/>`;
        return {
          under: !!s.lineOnly,
          svg: `<g class="series"${narrow ? '' : ` data-series="${si}"`}>${path}${dots}</g>`,
        };
      })
      // A line through other series' points goes under them, so it does not cross their dots.
      .sort((a, b) => Number(b.under) - Number(a.under))
      .map((g) => g.svg)
      .join('\n')
  );
}

function dotSvg(s: Series, p: LinePoint, x: (v: number) => number, y: (v: number) => number): string {
  return (
    `<g class="pt"><title>${esc(p.tip)}</title>${
      p.ring
        ? `<circle class="ring" cx="${n1(x(p.x))}" cy="${n1(y(p.y))}" r="7.5" fill="none" stroke="var(--ink, #0f172a)" stroke-width="1.5"/>`
        : ''
    }<circle cx="${n1(x(p.x))}" cy="${n1(y(p.y))}" r="4.5" ` +
    `${p.hollow ? `fill="var(--bg)" stroke="${s.color}" stroke-width="2"` : `fill="${s.color}"`}/></g>`
  );
}

// Point labels go on top of every point and line: each tries the spots around its point (right and above
// first) and takes the first whose box touches no label already placed, no point and no line, inside the plot.
// A label with no free spot, or one repeating the same text close by ("1 1 1" where every context starts), is
// left to the point's tooltip: two runs' lines a few percent apart leave their labels to the table under the
// chart rather than pile them up. Boxes are estimated: 7 units a character (a digit of the 11-unit label
// font), 11 high.
const CHAR_W = 7;
const LABEL_H = 11;
const POINT_R = 5.5; // the drawn radius 4.5 and a pixel of air
const LINE_GAP = 1.5; // half the 2.2-unit stroke and a little air
const NEARER = 3; // a label sits nearer its own point than any other by this much, so it reads as that point's

/** A line drawn between two points: x0, y0, x1, y1. */
export type Segment = [number, number, number, number];

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
const overlaps = (a: Box, b: Box, gap = 2) =>
  a.x0 < b.x1 + gap && b.x0 < a.x1 + gap && a.y0 < b.y1 + gap && b.y0 < a.y1 + gap;

const distance = (p: { px: number; py: number }, b: Box) =>
  Math.hypot(Math.max(b.x0 - p.px, 0, p.px - b.x1), Math.max(b.y0 - p.py, 0, p.py - b.y1));

// Whether a segment passes through a box grown by gap on every side (clipping the segment to the box).
function crosses([ax, ay, bx, by]: Segment, b: Box, gap: number): boolean {
  let t0 = 0;
  let t1 = 1;
  const dx = bx - ax;
  const dy = by - ay;
  const edges: Array<[number, number]> = [
    [-dx, ax - (b.x0 - gap)],
    [dx, b.x1 + gap - ax],
    [-dy, ay - (b.y0 - gap)],
    [dy, b.y1 + gap - ay],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

export function placeLabels(
  points: ReadonlyArray<{ px: number; py: number; label?: string | undefined }>,
  plot: Box,
  lines: readonly Segment[] = [],
): Array<{ x: number; y: number; label: string }> {
  const dots: Box[] = points.map((p) => ({
    x0: p.px - POINT_R,
    x1: p.px + POINT_R,
    y0: p.py - POINT_R,
    y1: p.py + POINT_R,
  }));
  const placed: Array<Box & { label: string; x: number; y: number }> = [];
  for (const p of points) {
    if (!p.label) continue;
    const w = p.label.length * CHAR_W;
    // (x, baseline y) of the text for each spot: NE, SE, NW, SW, N, S
    const spots: Array<[number, number]> = [
      [p.px + 6, p.py - 6],
      [p.px + 6, p.py + 6 + LABEL_H - 2],
      [p.px - 6 - w, p.py - 6],
      [p.px - 6 - w, p.py + 6 + LABEL_H - 2],
      [p.px - w / 2, p.py - 8],
      [p.px - w / 2, p.py + 8 + LABEL_H - 2],
    ];
    for (const [tx, ty] of spots) {
      const box = { x0: tx, x1: tx + w, y0: ty - LABEL_H + 2, y1: ty + 2 };
      const inside = box.x0 >= plot.x0 && box.x1 <= plot.x1 && box.y0 >= plot.y0 && box.y1 <= plot.y1;
      const repeats = placed.some((q) => q.label === p.label && Math.hypot(q.x - tx, q.y - ty) < 40);
      if (repeats) break; // the same text is already there: one label serves the cluster
      const own = distance(p, box);
      if (
        !inside ||
        placed.some((q) => overlaps(q, box)) ||
        dots.some((d) => overlaps(d, box, 0)) ||
        lines.some((l) => crosses(l, box, LINE_GAP)) ||
        points.some((q) => q !== p && distance(q, box) < own + NEARER)
      )
        continue;
      placed.push({ ...box, label: p.label, x: tx, y: ty });
      break;
    }
  }
  return placed.map(({ x, y, label }) => ({ x, y, label }));
}
