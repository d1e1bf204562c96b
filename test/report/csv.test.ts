import { describe, expect, it } from 'vitest';
import { CSV_HEADERS, csvField } from '../../src/report/csv.js';
import { renderReport } from '../../src/report/index.js';
import { syntheticResult } from './synthetic.js';
import { SEEDS, seedResult } from './seeds.js';

// A minimal RFC 4180 reader, enough to check our writer round-trips.
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += ch;
  }
  return rows;
}

describe('CSV', () => {
  it('quotes per RFC 4180', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(null)).toBe('');
    expect(csvField(1.5)).toBe('1.5');
  });

  it('one row per measurement with the seed columns first, CRLF line ends', () => {
    const r = seedResult(SEEDS[1].id);
    const csv = renderReport(r, 'csv');
    expect(csv.endsWith('\r\n')).toBe(true);
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual(CSV_HEADERS);
    expect(rows).toHaveLength(1 + r.prefill.length + r.decode.length);
    expect(rows.every((x) => x.length === CSV_HEADERS.length)).toBe(true);
    const h = (name: string) => CSV_HEADERS.indexOf(name);
    const cell = rows.find((x) => x[0] === 'Sustained decode' && x[1] === '8K' && x[3] === '64')!;
    expect([
      cell[h('Status')],
      cell[h('Total tok/s')],
      cell[h('TTFT ms')],
      cell[h('Average active requests')],
    ]).toEqual(['Requests queued', '2793.5', '11897', '56.4']);
  });

  it('carries the figures beyond the seeds and round-trips awkward strings', () => {
    const r = syntheticResult();
    const rows = parseCsv(renderReport(r, 'csv'));
    const h = (name: string) => CSV_HEADERS.indexOf(name);
    const failed = rows.find((x) => x[1] === '8K' && x[3] === '8')!;
    expect(failed[h('Error')]).toBe('every request failed: connection refused <after restart>');
    expect(failed[h('Errors connect')]).toBe('8');
    expect(failed[h('Errors')]).toBe('12');
    const ok = rows.find((x) => x[0] === 'Sustained decode' && x[1] === '4K' && x[3] === '1')!;
    expect(ok[h('TTFT p99 ms')]).toBe('240');
    expect(ok[h('Cache hit ratio')]).toBe('0.97');
    const pre = rows.find((x) => x[0] === 'Prefill' && x[1] === '4K')!;
    expect([pre[h('Prefill repeats')], pre[h('Outlier repeats')]]).toEqual(['3', '1']);
  });
});
