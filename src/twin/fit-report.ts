import type { Twin } from './twin.js';

// The fit's quality in words: each parameter with its uncertainty and the cells that pinned it, then each
// measured cell beside what the twin gives for it (the residuals).

const num = (v: number | null, d = 1) => (v === null ? '—' : v.toFixed(d));
const miss = (pair: [number | null, number | null]) =>
  pair[0] && pair[1]
    ? `${pair[1] >= pair[0] ? '+' : ''}${((100 * (pair[1] - pair[0])) / pair[0]).toFixed(1)}%`
    : '';

function table(rows: string[][]): string[] {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

export function fitReport(t: Twin): string {
  const out: string[] = [
    `twin ${t.profile.name}: fitted on ${t.meta.fittedFrom.join(', ')}`,
    '',
    'parameters',
  ];
  for (const p of t.params) out.push(`  ${p.name}: ${p.value} (${p.quality}; from ${p.from})`);
  for (const n of t.notes) out.push(`  note: ${n}`);
  out.push('', 'measured cells: measured / twin (miss)');
  out.push(
    ...table([
      ['  cell', 'status', 'twin status', 'total tok/s', 'miss', 'per request', 'miss', 'TTFT ms', 'miss'],
      ...t.residuals.map((r) => [
        `  ${r.cell}`,
        r.measuredStatus,
        r.twinStatus === r.measuredStatus ? 'same' : r.twinStatus,
        `${num(r.total[0])} / ${num(r.total[1])}`,
        miss(r.total),
        `${num(r.perRequest[0])} / ${num(r.perRequest[1])}`,
        miss(r.perRequest),
        `${num(r.ttft[0], 0)} / ${num(r.ttft[1], 0)}`,
        miss(r.ttft),
      ]),
      ...t.prefillResiduals.map((r) => [
        `  ${r.point}`,
        'Valid',
        'same',
        `${num(r.measured)} / ${num(r.twin)}`,
        miss([r.measured, r.twin]),
        '',
        '',
        '',
        '',
      ]),
    ]),
  );
  const s = t.meta.sigma;
  out.push(
    '',
    `prediction intervals (95%) from these misses: total tok/s ± ${(196 * s.total).toFixed(0)}%, per request ± ${(196 * s.perRequest).toFixed(0)}%, TTFT ± ${(196 * s.ttft).toFixed(0)}% (log scale), prefill ± ${(196 * s.prefill).toFixed(0)}%; wider past the measured range.`,
  );
  return out.join('\n') + '\n';
}
