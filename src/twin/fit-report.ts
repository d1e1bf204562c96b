import { shortStatus } from '../cell-rules.js';
import { fmtInt, fmtTokS, wrap } from '../format/index.js';
import type { Twin } from './twin.js';

// The fit's quality in words, at 80 columns as every text report: each parameter with its uncertainty and the
// cells that pinned it, then each measured cell and how far the twin's figure is from it (the residuals).

export const FIT_REPORT_WIDTH = 80;
const Z95 = 1.96;

// A miss to one decimal while small, whole percent beyond 10% (keeps the column narrow).
function miss([measured, twin]: [number | null, number | null]): string {
  if (!measured || twin === null) return '';
  const pct = (100 * (twin - measured)) / measured;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(Math.abs(pct) < 9.95 ? 1 : 0)}%`;
}

/** A 95% interval of a log-scale spread as it applies: a factor f down (÷ f) and up (× f), in percent. */
export function intervalWords(sigma: number): string {
  const f = Math.exp(Z95 * sigma);
  const down = Math.round(100 * (1 - 1 / f));
  const up = Math.round(100 * (f - 1));
  if (down === up) return `±${up}%`;
  const range = `−${down}%/+${up}%`;
  return f >= 1.5 ? `×/÷ ${f.toFixed(2)} (${range})` : range;
}

function table(rows: string[][]): string[] {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

// A cell's name (`32K × 64`) and an uncertainty (`± 0.5%`) stay on one line: their spaces are held while wrapping.
const HELD = '\u0001';
const hold = (text: string) => text.replaceAll(' × ', `${HELD}×${HELD}`).replaceAll('± ', `±${HELD}`);
const prose = (text: string, width: number): string[] =>
  wrap(hold(text), width - 2, '  ').map((l) => `  ${l.replaceAll(HELD, ' ')}`);

export function fitReport(t: Twin, width = FIT_REPORT_WIDTH): string {
  const out: string[] = [
    ...wrap(`twin ${t.profile.name}: fitted on ${t.meta.fittedFrom.join(', ')}`, width, '  '),
  ];
  out.push('', 'parameters');
  for (const p of t.params) out.push(...prose(`${p.name}: ${p.value} (${p.quality}; from ${p.from})`, width));
  for (const n of t.notes) out.push(...prose(`note: ${n}`, width));
  out.push('', ...wrap('measured cells, and how far the twin is from each (twin / measured − 1)', width));
  const differs = t.residuals.filter((r) => r.twinStatus !== r.measuredStatus);
  out.push(
    ...table([
      ['  cell', 'status', 'total', 'miss', 'per req', 'miss', 'TTFT ms', 'miss'],
      ...t.residuals.map((r) => [
        `  ${r.cell}`,
        `${shortStatus(r.measuredStatus)}${r.twinStatus === r.measuredStatus ? '' : '*'}`,
        fmtTokS(r.total[0]),
        miss(r.total),
        fmtTokS(r.perRequest[0]),
        miss(r.perRequest),
        fmtInt(r.ttft[0]),
        miss(r.ttft),
      ]),
      ...t.prefillResiduals.map((r) => [
        `  ${r.point}`,
        'Valid',
        fmtTokS(r.measured),
        miss([r.measured, r.twin]),
      ]),
    ]),
  );
  if (differs.length)
    out.push(
      ...prose(
        `* the twin gives another status: ${differs.map((r) => `${r.cell} ${r.twinStatus}`).join(', ')}.`,
        width,
      ),
    );
  if (t.prefillResiduals.length) out.push('  prefill rows: prompt tok/s in the total column.');
  const s = t.meta.sigma;
  out.push(
    '',
    ...wrap(
      `prediction intervals (95%) from these misses: total tok/s ${intervalWords(s.total)}, per request ${intervalWords(s.perRequest)}, TTFT ${intervalWords(s.ttft)}, prefill ${intervalWords(s.prefill)}; wider past the measured range.`,
      width,
      '  ',
    ),
  );
  return out.join('\n') + '\n';
}
