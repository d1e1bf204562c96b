import { describe, expect, it } from 'vitest';
import { CSV_HEADERS, csvDecimals, csvField } from '../../src/report/csv.js';
import { renderReport } from '../../src/report/index.js';
import { syntheticResult } from './synthetic.js';
import { SEEDS, seedResult } from './seeds.js';
import { parseCsv } from '../helpers/csv-read.js';

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

  it('rounds each column to its unit: no float noise, no figure cut below what the reports print', () => {
    const r = syntheticResult();
    const c = r.decode.find((x) => x.contextTokens === 4096 && x.concurrency === 1)!;
    // The review's run: client figures straight from the event loop's clock and CPU counters.
    c.client = {
      loopDelayP99Ms: 7.825790999999999,
      loopDelayMaxMs: 41.707903,
      cpuPctPerThread: 8.18401281357455,
      threads: 1,
      busiestLoopPct: 10.826880464971032,
      clientBound: true,
    };
    c.totalTokensPerS = 1657.1337;
    c.tbtMs = 0.564999999;
    c.cacheHitRatio = 0.99812345;
    const rows = parseCsv(renderReport(r, 'csv'));
    const h = (name: string) => CSV_HEADERS.indexOf(name);
    const row = rows.find((x) => x[0] === 'Sustained decode' && x[1] === '4K' && x[3] === '1')!;
    expect(row[h('Client loop delay p99 ms')]).toBe('7.83');
    expect(row[h('Client CPU % per thread')]).toBe('8.2');
    expect(row[h('Client busiest event loop %')]).toBe('10.8');
    expect(row[h('Total tok/s')]).toBe('1657.13'); // txt prints 1,657.1
    expect(row[h('Time between tokens ms')]).toBe('0.56');
    expect(row[h('Cache hit ratio')]).toBe('0.9981');
    // Every number in the seed's CSV and this one stays within its column's decimals.
    for (const csv of [rows, parseCsv(renderReport(seedResult(SEEDS[1].id), 'csv'))])
      for (const x of csv.slice(1))
        x.forEach((v, i) => {
          if (!/^-?\d+\.\d+$/.test(v)) return;
          expect(v.split('.')[1]!.length, `${CSV_HEADERS[i]}: ${v}`).toBeLessThanOrEqual(
            csvDecimals(CSV_HEADERS[i]!),
          );
        });
    expect(csvDecimals('Best margin')).toBe(4); // the sweep's share, 0.0205 = +2.05%
  });
});
