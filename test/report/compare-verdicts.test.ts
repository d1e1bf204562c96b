import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { renderCompare } from '../../src/report/index.js';
import type { RunResult } from '../../src/results/schema.js';
import { syntheticResult } from './synthetic.js';

// A and a B that is 10% slower in one cell and equal elsewhere, every cell with a ±1% interval.
function withIntervals(r: RunResult, slowCell?: string): RunResult {
  const copy = structuredClone(r);
  for (const c of copy.decode) {
    if (c.totalTokensPerS === null) continue;
    if (`${c.contextTokens}x${c.concurrency}` === slowCell) c.totalTokensPerS *= 0.9;
    const v = c.totalTokensPerS;
    c.intervals = { totalTokensPerS: { lo: v * 0.99, hi: v * 1.01 } };
  }
  return copy;
}

function writeResults(a: RunResult, b: RunResult): [string, string] {
  const dir = mkdtempSync(join(tmpdir(), 'verdicts-'));
  const pa = join(dir, 'a.json');
  const pb = join(dir, 'b.json');
  writeFileSync(pa, JSON.stringify(a));
  writeFileSync(pb, JSON.stringify(b));
  return [pa, pb];
}

describe('compare verdicts', () => {
  afterEach(() => vi.restoreAllMocks());
  const a = withIntervals(syntheticResult());
  const measured = a.decode.find((c) => c.status === 'Valid' && c.totalTokensPerS)!;
  const slowKey = `${measured.contextTokens}x${measured.concurrency}`;
  const b = withIntervals(syntheticResult(), slowKey);

  it('names the slower cell with its size and interval in every format', () => {
    const txt = renderCompare([a, b], 'txt', { width: 100 });
    expect(txt).toContain('Verdicts B vs A');
    expect(txt).toMatch(/B vs A: 0 faster, 1 slower, \d+ no significant difference/);
    expect(txt).toMatch(/B is 10% ± 1% slower than A \(total tok\/s\)/);
    expect(renderCompare([a, b], 'md')).toContain('## Verdicts B vs A');
    expect(renderCompare([a, b], 'html')).toContain('B is 10% ± 1% slower than A');
  });

  it('--fail-on exits 12 listing the offending cells, and passes below the threshold', async () => {
    const [pa, pb] = writeResults(a, b);
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    expect(await main(['compare', pa, pb, '--fail-on', '5%'])).toBe(12);
    expect(err.join('')).toMatch(
      /error \[REGRESSION\]: 1 significant slowdown beyond 5% against A \(99% test; ± is the 95% interval\): B .+ -10% ± 1%/,
    );
    err.length = 0;
    expect(await main(['compare', pa, pb, '--fail-on', '15'])).toBe(0);
    // The synthetic runs' prefill points have one repeat: the gate says it did not judge them, even when it passes.
    expect(err.join('')).toMatch(
      /^note: the gate did not judge B: Prefill not judged at 1K, 2K, 8K, 16K \(A and B measured one repeat each: no spread; --prefill-repeats 3/,
    );
    err.length = 0;
    expect(await main(['compare', pa, pb, '--fail-on', 'lots'])).toBe(2);
    expect(err.join('')).toBe(
      'error [CONFIG_INVALID]: invalid options: --fail-on: expected a percentage from 0 up to 100, such as 5%\n',
    );
  });

  it('lists every verdict: in md and html always, in the terminal with --verbose', () => {
    const key = (c: { contextTokens: number; concurrency: number }) => `${c.contextTokens}x${c.concurrency}`;
    const both = a.decode.filter(
      (c) => c.totalTokensPerS && b.decode.some((d) => key(d) === key(c) && d.totalTokensPerS),
    ).length;
    const points = a.prefill.filter((p) => p.tokensPerS).length;
    const rows = (text: string, re: RegExp) => text.split('\n').filter((l) => re.test(l)).length;
    const md = renderCompare([a, b], 'md');
    expect(rows(md, /^\| (prefill \d+K|\d+K × \d+) +\|/)).toBe(both + points);
    expect(md).toMatch(/^\| [^|]+ \| total tok\/s +\| [^|]+ \| [^|]+ \| −10% ± 1(\.\d)?% +\| slower +\|$/m);
    const html = renderCompare([a, b], 'html');
    expect(html.match(/<table class="data verdict-list stack">/g)).toHaveLength(1);
    expect(
      html.split('<table class="data verdict-list stack">')[1]!.split('</table>')[0]!.match(/<tr>/g),
    ).toHaveLength(both + points + 1);
    const quiet = renderCompare([a, b], 'txt', { width: 100 });
    expect(quiet).toContain("Every cell's verdict: --verbose, or --format md / html.");
    const verbose = renderCompare([a, b], 'txt', { width: 160, verbose: true });
    expect(rows(verbose, /^ {2}(prefill \d+K|\d+K × \d+) +(total|prompt) tok\/s/)).toBe(both + points);
    const single = a.prefill.filter((p) => p.tokensPerS && p.repeats.filter((r) => !r.outlier).length < 2);
    expect(single.length).toBeGreaterThan(0);
    expect(rows(verbose, /not judged: A and B measured one repeat each: no spread$/)).toBe(single.length);
  });

  it('--fail-on 0% fails on any significant slowdown, and never on a change inside the noise or under 2%', async () => {
    const slight = withIntervals(syntheticResult());
    for (const c of slight.decode) if (c.totalTokensPerS) c.totalTokensPerS *= 0.99; // 1% slower: under 2%
    const [pa, pSlight] = writeResults(a, slight);
    const [, pSlow] = writeResults(a, b);
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    expect(await main(['compare', pa, pSlight, '--fail-on', '0%'])).toBe(0);
    expect(await main(['compare', pa, pSlow, '--fail-on', '0%'])).toBe(12);
    expect(err.join('')).toMatch(/error \[REGRESSION\]: 1 significant slowdown against A \(99% test/);
  });

  // A demo on a busy machine kept one of three 8K repeats (the other two more than 25% off the median) and the
  // gate said "B measured one repeat", with --prefill-repeats 3 as the fix it already had.
  it('a point whose other repeats were outliers is not said to have measured one repeat', async () => {
    const three = (p: RunResult['prefill'][number], outliers: boolean) => ({
      ...p,
      repeats: [0.75, 1, 1.3].map((f) => ({
        promptTokens: p.promptTokens ?? p.contextTokens,
        promptTokensSource: 'usage' as const,
        ttftMs: 10,
        tokensPerS: p.tokensPerS! * (outliers ? f : 1 + (f - 1) / 50),
        ...(outliers && f !== 1 ? { outlier: true } : {}),
      })),
    });
    const valid = (r: RunResult) => r.prefill.filter((p) => p.tokensPerS);
    const ra = structuredClone(a);
    const rb = structuredClone(a);
    ra.prefill = valid(ra).map((p) => three(p, false));
    rb.prefill = valid(rb).map((p, i) => three(p, i === 0));
    const [pa, pb] = writeResults(ra, rb);
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    expect(await main(['compare', pa, pb, '--fail-on', '5%'])).toBe(0);
    const ctx = valid(rb)[0]!.contextTokens;
    expect(err.join('')).toMatch(
      new RegExp(
        `Prefill not judged at ${ctx / 1024}K \\(B kept one of 3 repeats, the others flagged as outliers: no spread; rerun on a quieter machine\\)`,
      ),
    );
    expect(err.join('')).not.toContain('measured one repeat');
  });
});

// Two identical demo runs on a loaded laptop: compare said "prefill 2K: B is 15% ± 10% slower" (significant) and
// would fail the gate, without saying that B's client was the bottleneck in most of its cells (docs/method.md
// "Verdicts": a verdict a client shaped is not the server's).
describe('verdicts where a client was the bottleneck', () => {
  afterEach(() => vi.restoreAllMocks());
  const check = (bound: boolean) => ({
    loopDelayP99Ms: bound ? 40 : 2,
    loopDelayMaxMs: bound ? 60 : 3,
    cpuPctPerThread: 30, // the client had CPU to spare: other work held the machine
    threads: 1,
    clientBound: bound,
    ...(bound ? { reason: 'event-loop delay p99 40 ms > 5 ms' } : {}),
  });
  // Every prefill point measured three times, 1% apart: an interval each; its TTFT is its prompt at its speed.
  const repeated = (r: RunResult, slowCtx?: number) => {
    r.prefill = r.prefill
      .filter((p) => p.tokensPerS)
      .map((p) => {
        const v = p.tokensPerS! * (p.contextTokens === slowCtx ? 0.85 : 1);
        return {
          ...p,
          tokensPerS: v,
          ttftMs: (p.contextTokens / v) * 1000,
          repeats: [0.99, 1, 1.01].map((f) => ({
            promptTokens: p.promptTokens ?? p.contextTokens,
            promptTokensSource: 'usage' as const,
            ttftMs: (p.contextTokens / (v * f)) * 1000,
            tokensPerS: v * f,
          })),
        };
      });
    return r;
  };
  const a = repeated(withIntervals(syntheticResult()));
  for (const c of a.decode) if (c.status !== 'Failed') c.client = check(false);
  const slowCtx = a.prefill[1]!.contextTokens;
  const measured = a.decode.filter((c) => c.totalTokensPerS && c.intervals);
  const slowCell = measured[0]!;
  const key = (c: { contextTokens: number; concurrency: number }) => `${c.contextTokens}x${c.concurrency}`;
  const b = repeated(withIntervals(syntheticResult(), key(slowCell)), slowCtx);
  // B's client was the bottleneck in the slow cell and one other: its machine was busy.
  for (const c of b.decode)
    if (c.status !== 'Failed') c.client = check([slowCell, measured[1]!].some((m) => key(m) === key(c)));
  const slowCellName = `${slowCell.contextTokens / 1024}K × ${slowCell.concurrency}`;
  const slowPoint = `prefill ${slowCtx / 1024}K`;

  it('says the verdict is not the server’s beside it, and keeps it out of the counts and the worst slowdowns', () => {
    const txt = renderCompare([a, b], 'txt', { width: 100 });
    expect(txt).toMatch(
      /B vs A: 0 faster, 0 slower, \d+ no significant difference, 2 not the server's \(the client/,
    );
    expect(txt).not.toContain('Worst slowdowns');
    expect(txt).toContain("Not the server's (the client was the bottleneck");
    const flat = txt.replace(/\n +/g, ' ');
    // Each point's interval: three repeats 1% apart, t(0.975, 2) = 4.30: ± 2.5% each; the ratio's 95% half
    // width 1.96 × √2 × 2.5% / 1.96 = 3.5% on the log scale, 0.85 × (e^0.035 − 1) = 3% of the change.
    expect(flat).toContain(
      // 2,048 tokens at 10.8K × 0.85 = 9,170.7 tok/s: a 223 ms TTFT, of which 40 ms late is 18%, more than the 15%.
      `${slowPoint}: B is 15% ± 3% slower than A (prompt tok/s), not the server's: B's machine was busy (B's client the bottleneck in 2 of 11 measured cells, its stamps some 40 ms late against this point's 223 ms TTFT)`,
    );
    expect(flat).toContain(
      `${slowCellName}: B is 10% ± 1% slower than A (total tok/s), not the server's: B's client was the bottleneck`,
    );
    const md = renderCompare([a, b], 'md');
    expect(md).toMatch(
      new RegExp(
        `\\| ${slowCellName} \\| total tok/s \\|[^\\n]+\\| slower, not the server's: B's client was the bottleneck \\|`,
      ),
    );
  });

  it('the verbose table says it short, within 80 columns; the summary gives the evidence', () => {
    const txt = renderCompare([a, b], 'txt', { width: 80, verbose: true });
    expect(Math.max(...txt.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
    const flat = txt.replace(/\n +/g, ' ');
    // The row: the verdict and whose machine; the cells counted once, in the summary above it.
    expect(flat).toMatch(
      new RegExp(
        `${slowPoint} +prompt tok/s +[^ ]+ +[^ ]+ +−15% ± 3\\.0% slower, not the server's: B's machine was busy prefill`,
      ),
    );
    expect(flat.match(/B's client the bottleneck in 2 of 11 measured cells/g)).toHaveLength(1);
  });

  it('--fail-on does not fail on it, and says on stderr what it did not count', async () => {
    const [pa, pb] = writeResults(a, b);
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    expect(await main(['compare', pa, pb, '--fail-on', '0%'])).toBe(0);
    expect(err.join('')).toContain(
      `note: the gate did not count B ${slowPoint}: B is 15% ± 3% slower than A`,
    );
    expect(err.join('')).toContain(
      `note: the gate did not count B ${slowCellName}: B is 10% ± 1% slower than A`,
    );
    // The same slowdowns on a quiet machine fail it.
    const quiet = structuredClone(b);
    for (const c of quiet.decode) if (c.client) c.client = check(false);
    const [, pq] = writeResults(a, quiet);
    err.length = 0;
    expect(await main(['compare', pa, pq, '--fail-on', '0%'])).toBe(12);
    expect(err.join('')).toMatch(/error \[REGRESSION\]: 2 significant slowdowns against A/);
  });

  // The prefill gate's integration run on a loaded machine: A's 2 cells client-bound, B's 16K point 10% slower;
  // a TTFT of several hundred ms that a late stamp cannot explain is the server's, and fails the gate.
  it("a busy machine whose late stamps cannot explain a prefill change leaves the verdict the server's", async () => {
    const long = structuredClone(b);
    const p = long.prefill.find((x) => x.contextTokens === slowCtx)!;
    p.ttftMs = 1000; // 40 ms of 1,000: 4%, under the 15% change
    const txt = renderCompare([a, long], 'txt', { width: 200 });
    expect(txt).toMatch(
      new RegExp(`Worst slowdowns:\\n +${slowPoint}: B is 15% ± 3% slower than A \\(prompt tok/s\\)\\n`),
    );
    const [pa, pl] = writeResults(a, long);
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    expect(await main(['compare', pa, pl, '--fail-on', '5%'])).toBe(12);
    expect(err.join('')).toContain(`B ${slowPoint} -15% ± 3%`);
  });

  it('a client short of CPU only in its own cells does not taint the prefill points', () => {
    const saturated = structuredClone(b);
    for (const c of saturated.decode) if (c.client?.clientBound) c.client.cpuPctPerThread = 97;
    const txt = renderCompare([a, saturated], 'txt', { width: 200 });
    expect(txt).toMatch(
      new RegExp(`Worst slowdowns:\\n +${slowPoint}: B is 15% ± 3% slower than A \\(prompt tok/s\\)\\n`),
    );
  });

  it('lists the worst slowdowns under their heading, not beside it (md and html)', () => {
    const quiet = structuredClone(b);
    for (const c of quiet.decode) if (c.client) c.client = check(false);
    const md = renderCompare([a, quiet], 'md');
    expect(md).toMatch(/\n\nWorst slowdowns:\n\n- [^\n]+slower than A[^\n]+\n- [^\n]+slower than A/);
    const html = renderCompare([a, quiet], 'html');
    expect(html).toMatch(
      /<li>Worst slowdowns:<ul><li>[^<]+slower than A[^<]+<\/li><li>[^<]+<\/li><\/ul><\/li>/,
    );
  });
});
