import { prefillEvidence } from '../prefill-evidence.js';
import type { PrefillPoint } from '../../results/schema.js';
import { contextLabel, fmtMs, fmtTokS, fmtTokSChart } from '../../format/index.js';
import { esc } from './escape.js';
import { linearScale, n1, text, tickLabel, twoWidths } from './svg.js';

// Bars of prompt tok/s by context with the value on top and the TTFT under each context label,
// as in the seeds; outliers in the warning colour with a marker. Drawn twice (see twoWidths).
export function prefillChartSvg(points: PrefillPoint[], outliers: Set<number>): string {
  return twoWidths((w) => drawPrefill(points, outliers, w));
}

function drawPrefill(points: PrefillPoint[], outliers: Set<number>, W: number): string {
  const narrow = W < 600;
  const H = narrow ? 260 : 320;
  const l = narrow ? 44 : 64;
  const r = narrow ? 6 : 16;
  const band = (W - l - r) / Math.max(1, points.length);
  // Under a narrow bar there is room for the context only; the TTFT stays in the tooltip and the table.
  const roomy = !narrow || band >= 56;
  // Three lines under a prefill-only bar (context, TTFT, "prefill only") need the bottom margin to hold them.
  const third = roomy && points.some((p) => p.decodeContext === false);
  const m = { l, r, t: 30, b: narrow ? (third ? 56 : 40) : 62 };
  const max = Math.max(1, ...points.map((p) => p.tokensPerS ?? 0));
  const y = linearScale(max * 1.08, H - m.b, m.t, 4);
  const bw = Math.min(64, band * 0.62);
  const small = narrow && band < 44 ? ' font-size="10"' : ''; // labels of a crowded narrow chart
  // The narrow copy carries no data attributes: pages and tests address the wide one.
  const data = (p: PrefillPoint) =>
    narrow ? '' : ` data-prefill="${p.contextTokens}" data-status="${esc(p.status)}"`;
  const grid = y.ticks
    .map(
      (t) =>
        `<line class="grid" x1="${m.l}" x2="${W - m.r}" y1="${n1(y(t))}" y2="${n1(y(t))}"/>` +
        text(m.l - 8, y(t) + 4, tickLabel(fmtTokSChart)(t), 'class="tick" text-anchor="end"'),
    )
    .join('');
  const bars = points
    .map((p, i) => {
      const cx = m.l + band * (i + 0.5);
      const label = contextLabel(p.contextTokens);
      const under =
        text(cx, H - m.b + 18, label, `class="xl" text-anchor="middle"${small}`) +
        (roomy
          ? text(
              cx,
              H - m.b + 34,
              p.ttftMs === null ? '' : `${fmtMs(p.ttftMs)}`,
              'class="sub" text-anchor="middle"',
            )
          : '') +
        (roomy && p.decodeContext === false
          ? text(cx, H - m.b + 48, 'prefill only', 'class="sub" text-anchor="middle"')
          : '');
      if (p.tokensPerS === null)
        return `<g${data(p)}>${text(cx, H - m.b - 8, narrow ? '×' : p.status, 'class="fail" text-anchor="middle"')}${under}</g>`;
      const top = y(p.tokensPerS);
      const out = outliers.has(p.contextTokens);
      const cls = out ? 'bar bar-out' : p.decodeContext === false ? 'bar bar-only' : 'bar';
      const tip = `${label}: ${fmtTokS(p.tokensPerS)} prompt tok/s, TTFT ${fmtMs(p.ttftMs)}${
        p.promptTokens ? `, ${p.promptTokens.toLocaleString('en-US')} prompt tokens` : ''
      }${prefillEvidence(p) ? ` (${prefillEvidence(p)})` : ''}${out ? ' — outlier, see Anomalies' : ''}`;
      return (
        `<g${data(p)}${out && !narrow ? ' data-outlier' : ''}><title>${esc(tip)}</title>` +
        `<rect class="${cls}" x="${n1(cx - bw / 2)}" y="${n1(top)}" width="${n1(bw)}" height="${n1(H - m.b - top)}" rx="3"/>` +
        text(
          cx,
          top - 7,
          fmtTokSChart(p.tokensPerS),
          `class="val${out ? ' val-out' : ''}" text-anchor="middle"${small}`,
        ) +
        (out ? text(cx + bw / 2 - 2, top + 16, '!', 'class="mark" text-anchor="end"') : '') +
        `${under}</g>`
      );
    })
    .join('');
  return `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="Prompt tokens per second by context length">
${grid}<line class="axis" x1="${m.l}" x2="${W - m.r}" y1="${H - m.b}" y2="${H - m.b}"/>
${text(16, m.t - 12, 'prompt tok/s', 'class="axl"')}${bars}</svg>`;
}
