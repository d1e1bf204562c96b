import { describe, expect, it } from 'vitest';
import { printOutcome } from '../../src/cli/run.js';
import { findAnomalies } from '../../src/report/anomalies.js';
import { renderHtml } from '../../src/report/html/template.js';
import { renderCsv } from '../../src/report/csv.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderText } from '../../src/report/text.js';
import { syntheticResult } from './synthetic.js';

describe('client self-check and token attribution in the reports', () => {
  it('a client-bound cell is flagged in every report, with the reason', () => {
    const r = syntheticResult();
    const c = r.decode.find((x) => x.status === 'Valid')!;
    c.client = {
      loopDelayP99Ms: 31.4,
      loopDelayMaxMs: 80,
      cpuPctPerThread: 97,
      threads: 1,
      clientBound: true,
      reason: 'event-loop delay p99 31.4 ms > 5 ms; client CPU 97% of a core per thread',
    };
    const flags = findAnomalies(r).filter((a) => a.kind === 'client-bound');
    expect(flags).toHaveLength(1);
    expect(flags[0]!.severity).toBe('warn');
    expect(flags[0]!.text).toMatch(/client was the bottleneck \(event-loop delay p99 31.4 ms/);
    expect(renderText(r)).toMatch(/client was the\s+bottleneck/);
    expect(renderMarkdown(r)).toMatch(/client was the bottleneck/);
    const [head, ...rows] = renderCsv(r)
      .trim()
      .split(/\r?\n/)
      .map((l) => l.split(','));
    const col = head!.indexOf('Client bound');
    expect(rows.filter((x) => x[col] === 'true')).toHaveLength(1);
    expect(rows.find((x) => x[col] === 'true')![head!.indexOf('Client loop delay p99 ms')]).toBe('31.4');
    c.client = { ...c.client, clientBound: false };
    delete c.client.reason;
    expect(findAnomalies(r).some((a) => a.kind === 'client-bound')).toBe(false);
  });

  it('an estimated token split states the bound of the window count', () => {
    const r = syntheticResult();
    const c = r.decode.find((x) => x.status === 'Valid' && x.outputTokens)!;
    c.outputTokens = 12_000;
    Object.assign(c, { chunkAttribution: 'estimated', windowTokenErrorBound: 36 });
    const [flag] = findAnomalies(r).filter((a) => a.kind === 'estimated-tokens');
    expect(flag!.text).toMatch(/12,000 tokens may be off by up to 36 \(0.30%\)/);
    Object.assign(c, { chunkAttribution: 'exact', windowTokenErrorBound: 0 });
    expect(findAnomalies(r).some((a) => a.kind === 'estimated-tokens')).toBe(false);
  });

  it('a repeat that failed is said, though the cell kept the others', () => {
    const r = syntheticResult();
    const c = r.decode.find((x) => x.status === 'Valid')!;
    const ok = {
      status: 'Valid' as const,
      totalTokensPerS: 1,
      perRequestTokensPerS: 1,
      ttftMs: 1,
      tbtMs: 1,
      measuredS: 1,
    };
    c.repeats = [ok, { ...ok, status: 'Failed', error: 'TARGET_UNREACHABLE' }, ok];
    const flag = findAnomalies(r).find((a) => a.text.includes('repeats failed'))!;
    expect(flag.text).toMatch(
      /1 of 3 repeats failed \(TARGET_UNREACHABLE\); the figures are those of the others/,
    );
  });

  // A demo on a loaded laptop had most of its anomalies blame the client, one cell at a time, and nothing said
  // the machine was busy or what to do: the run now says it once, first, and in the terminal summary.
  it('several client-bound cells are summed up once: a busy machine, or a saturated client, and what to do', () => {
    const r = syntheticResult();
    const measured = r.decode.filter((c) => c.status === 'Valid' || c.status === 'Requests queued');
    expect(measured.length).toBeGreaterThanOrEqual(3);
    const load = { loopDelayMaxMs: 90, threads: 1, wallMs: 3000 };
    for (const c of measured)
      c.client = { ...load, loopDelayP99Ms: 2, cpuPctPerThread: 20, clientBound: false };
    const bind = (c: (typeof measured)[number], p99: number, cpu = 30) =>
      (c.client = {
        ...load,
        loopDelayP99Ms: p99,
        cpuPctPerThread: cpu,
        clientBound: true,
        reason: `event-loop delay p99 ${p99} ms > 5 ms`,
      });
    bind(measured[0]!, 26.9);
    expect(findAnomalies(r).some((a) => a.kind === 'machine-busy')).toBe(false); // one cell says it itself
    bind(measured[1]!, 62.8, 35);
    const [first] = findAnomalies(r);
    expect(first!.kind).toBe('machine-busy');
    expect(first!.text).toBe(
      `The benchmark client was the bottleneck in 2 of ${measured.length} measured cells (event-loop delay p99 up to 62.8 ms): ` +
        'this machine was busy (the event loop ran late while the client itself used less than a core: other ' +
        "work held the CPU). Those cells' TTFT and tok/s are partly this machine's, not the server's. Close other " +
        'programs and run again; against a server, --workers N spreads the client over threads.',
    );
    expect(renderMarkdown(r)).toContain('this machine was busy');
    expect(renderText(r).replace(/\s+/g, ' ')).toContain('this machine was busy');
    expect(renderHtml(r)).toContain('machine busy');
    let stdout = '';
    const io = { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: () => true }, env: {} };
    printOutcome(
      { dir: '/r', resultPath: '/r/result.json', result: r, reports: [], counts: undefined! },
      false,
      io,
    );
    const lines = stdout.split('\n');
    expect(
      lines.every((l) => l.length <= 80),
      stdout,
    ).toBe(true);
    expect(stdout.replace(/\s+/g, ' ')).toContain('note: The benchmark client was the bottleneck in 2 of');
    // The client's own CPU full in most of them: it is the client, not the machine.
    bind(measured[0]!, 26.9, 97);
    bind(measured[1]!, 62.8, 95);
    expect(findAnomalies(r)[0]!.text).toContain('the client itself had no CPU to spare');
  });
});
