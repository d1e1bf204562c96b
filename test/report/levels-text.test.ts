import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import { stripAnsi } from '../../src/report/text.js';
import type { ServiceLevel } from '../../src/results/schema.js';
import { closedOnlyResult, levelsResult } from '../helpers/level-results.js';

// The terminal report of a result with load levels (docs/workloads.md "Reports"): the answer in requests per second
// first, beside the users at once, and per row its levels in tables within 80 columns. The figures below are the
// fixture's (test/helpers/level-results.ts), worked by hand: a 60 s window, so a level of 180 arrivals offered 3.00
// req/s; 164 of them met the default level (2 s, 20 tok/s, 90%), a goodput of 164 / 60 = 2.73 req/s and a share of
// 91%, whose 95% Wilson interval is (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n) with p = 0.9111, n = 180,
// z = 1.96: 0.9025 ± 0.0420, 86–94%.
const STRICT: ServiceLevel = { ttftMs: 500, share: 0.9 };
const text = (slo?: ServiceLevel, width = 80) =>
  stripAnsi(renderReport(levelsResult(), 'txt', { width, color: true, ...(slo ? { slo } : {}) }));
const section = (t: string) => t.slice(t.indexOf('Load levels ·'), t.indexOf('\nAnomalies'));

describe('terminal report with load levels', () => {
  it('fits 80 columns, colour or not', () => {
    const t = text();
    for (const line of t.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(t).toBe(renderReport(levelsResult(), 'txt', { width: 80 }));
    for (const line of text(undefined, 50).split('\n'))
      expect([...line].length, line).toBeLessThanOrEqual(50);
  });

  it('answers in requests per second first, beside the users at once, in words', () => {
    const t = text();
    const answer = t.slice(t.indexOf('The answer'), t.indexOf('\nHardware'));
    expect(answer).toContain('The answer · users at once and requests per second under a service level');
    expect(answer).toContain(
      '  8K: 2 req/s meets the service level (3 is too close to call); 4 users at once\n' +
        // 118 of 120 met it: 98%; goodput 118 / 60 = 1.97 req/s
        '    98% of 120 requests met it at 2 req/s (goodput 1.97 req/s)\n' +
        '    3 req/s is too close to call: 91% of 180 requests met it, and the 95%\n' +
        '      interval of that share (86–94%) holds the 90% asked; more requests (a\n' +
        '      longer --duration) would decide it.',
    );
    // The search's answer: 3.08 met it (180 of 185, 97%; goodput 180 / 60 = 3), 3.36 did not (150 of 202).
    expect(answer).toContain(
      '  shared-prefix:prefixes=4,prefix=2K,suffix=256: 3.08 req/s meets the service\n' +
        '      level (3.36 fails it); 4 users at once\n' +
        '    97% of 185 requests met it at 3.08 req/s (goodput 3 req/s)\n' +
        '    8 req/s is client-bound, not judged: the client sent requests up to 60.6 ms\n' +
        '      behind their schedule (p99 48.5 ms, past 12.5 ms)',
    );
    expect(t.indexOf('Requests per second (arrivals')).toBeLessThan(t.indexOf('Load levels ·'));
  });

  it('tabulates every level of a row with its figures and verdict', () => {
    const s = section(text());
    // offered = arrived / 60, achieved = ended ok in the window / 60, goodput = met / 60
    expect(s).toContain(
      [
        '  load     offered  achieved  goodput  met it      95%  verdict',
        '  1 req/s     1.00      1.00     1.00    100%  94–100%  meets',
        '  2 req/s     2.00      1.98     1.97     98%  94–100%  meets',
        '  3 req/s     3.00      2.98     2.73     91%   86–94%  too close to call',
        '  4 req/s     4.00      3.20     2.50     63%   56–68%  fails',
        '  8 req/s     8.00      0.20        —       —        —  fails',
      ].join('\n'),
    );
    expect(s).toContain('  4 req/s  1,400  6,800  9,900  30.5  41.0  22.5  38.0');
    // 2,048 cacheable tokens for each request after the first four: (202 - 4) x 2,048 = 405,504; 151,552 served, 37%
    expect(s).toContain('  3.36 req/s    1,666.8  151.6K of 405.5K (37%)    1.1 ms  queued');
    expect(s).toContain('  8 req/s       3,900.2  974.8K of 974.8K (100%)  48.5 ms  Client-bound');
    expect(s).toContain('  8 req/s        8.00      8.00        —       —        —  not judged');
    expect(s).toMatch(/8 req\/s: Client-bound, not judged: the client sent requests up to 60\.6 ms/);
    expect(s).toMatch(/8 req\/s: Failed: 468 of 480 requests failed \(468\s+http_status\)\./);
    expect(s.replace(/\s+/g, ' ')).toContain(
      'Rate search (--find-rate), from 1 req/s (given), 6 windows in req/s: 1 meets, 2 meets, 4 fails, 2.83 meets, 3.36 fails, 3.08 meets; done: 3.08 req/s and 3.36 req/s are within 10%.',
    );
  });

  it('judges every level again under --slo from its stored requests', () => {
    const t = text(STRICT);
    // Within 500 ms: 2 req/s's 118 (first token 450 ms) still meet it, 3 req/s's (700 ms) none; on the shared prefix
    // 2.83 req/s's 166 (380 ms) meet it and 3.08 req/s's (520 ms) none: 0 of 185, goodput 0.
    expect(t).toContain('  8K: 2 req/s meets the service level (3 fails it); 4 users at once');
    expect(t).toContain('  shared-prefix:prefixes=4,prefix=2K,suffix=256: 2.83 req/s meets the service\n');
    expect(t).toContain('    98% of 170 requests met it at 2.83 req/s (goodput 2.77 req/s)');
    expect(section(t)).toContain('  3.08 req/s     3.08      3.08     0.00      0%     0–2%  fails');
    expect(section(t).replace(/\s+/g, ' ')).toContain(
      'Its verdicts are under the level it searched by (first token within 2 s and at least 20 tok/s each, for 90% of requests).',
    );
  });

  it('leaves a result without levels as it was', () => {
    const t = stripAnsi(renderReport(closedOnlyResult(), 'txt', { width: 80 }));
    expect(t).toContain('The answer · users at once under a service level\n');
    expect(t).not.toContain('req/s');
    expect(t).not.toContain('Load levels');
  });
});
