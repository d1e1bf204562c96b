import { describe, expect, it } from 'vitest';
import type { DecodeCell, RunResult } from '../../src/results/schema.js';
import { SWEEP_SCHEMA_ID, SWEEP_SCHEMA_VERSION, type SweepFile } from '../../src/results/sweep-schema.js';
import { renderSweep } from '../../src/report/sweep.js';
import { paretoFrontier, serviceLevelText, shortLabels, sweepModel } from '../../src/report/sweep-model.js';
import type { ServiceLevel } from '../../src/results/schema.js';
import { parseServiceLevel } from '../../src/stats/slo.js';
import { stripAnsi } from '../../src/report/text.js';
import { mulberry32 } from '../reliability/lib/crash.js';
import { syntheticResult } from './synthetic.js';

// Three configurations measured over one context: a cell where they tie, one where B is 50% ahead of A with
// tight intervals, one without intervals, one only C could run.
// A cell's per-request tok/s is total / N unless given (a server that runs its requests unevenly, or fewer at once).
type Fig =
  [total: number, halfWidth: number | null, perRequest?: number | null, over?: Partial<DecodeCell>] | 'over';

function result(key: string, figs: Record<number, Fig>, gpus = 2): RunResult {
  const r = structuredClone(syntheticResult());
  r.runId = key;
  r.hardware.gpuCount = gpus;
  r.decode = Object.entries(figs).map(([n, f]): DecodeCell => {
    const base = r.decode[0]!;
    if (f === 'over')
      return {
        ...base,
        contextTokens: 1024,
        concurrency: Number(n),
        status: 'Over capacity',
        totalTokensPerS: null,
        perRequestTokensPerS: null,
        intervals: {},
      };
    const [total, half, perRequest, over] = f;
    return {
      ...base,
      contextTokens: 1024,
      concurrency: Number(n),
      status: 'Valid',
      totalTokensPerS: total,
      perRequestTokensPerS: perRequest === undefined ? total / Number(n) : perRequest,
      intervals: half === null ? {} : { totalTokensPerS: { lo: total - half, hi: total + half } },
      ...over,
    };
  });
  return r;
}

function sweepFile(names: string[], status: Partial<Record<number, 'failed'>> = {}): SweepFile {
  return {
    schema: SWEEP_SCHEMA_ID,
    version: SWEEP_SCHEMA_VERSION,
    sweepId: 'sweep-test',
    tool: { name: 'llm-inference-bench', version: '0.7.0' },
    status: 'complete',
    startedAt: '2026-12-01T10:00:00.000Z',
    serveCmd: 'llama-server -m m.gguf --port {port}',
    serveParams: '/tmp/p.yaml',
    options: {},
    servers: names.map((n, i) => ({ key: `k${i}`, name: n, params: {}, env: {}, log: `k${i}/server.log` })),
    runs: names.map((n, i) => ({
      key: `k${i}`,
      name: n,
      server: `k${i}`,
      linked: [],
      status: status[i] ?? 'complete',
      ...(status[i]
        ? {
            reason: 'the server exited with code 1 before it answered /health or /v1/models',
            logTail: ['error: unknown argument: --bogus'],
          }
        : {}),
    })),
  };
}

const three = () => {
  const file = sweepFile(['np=2 m=x', 'np=4 m=x', 'np=8 m=x']);
  const results = new Map([
    ['k0', result('k0', { 1: [100, 2], 2: [150, null], 4: [200, 4], 8: 'over' })],
    ['k1', result('k1', { 1: [101, 2], 2: [180, null], 4: [300, 6], 8: 'over' })],
    ['k2', result('k2', { 1: [99, 2], 2: [170, 3], 4: [150, 3], 8: [320, 6] })],
  ]);
  return { file, results };
};

describe('sweep report model', () => {
  it('names the fastest per cell with its margin over the runner-up and the verdict compare gives', () => {
    const { file, results } = three();
    const m = sweepModel(file, results);
    const at = (n: number) => m.cells.find((c) => c.concurrency === n)!;
    expect(at(1).outcome).toBe('no significant difference');
    expect(at(1).candidates.map((c) => m.configs[c.config]!.letter)).toEqual(['B', 'A', 'C']);
    // 300 vs 200: +50%; each side's 95% interval gives se = ln(hi/lo)/3.92, the change's 95% half width is
    // (1.5 e^{1.96 se} - 1.5 e^{-1.96 se}) / 2 with se = hypot(ln(306/294), ln(204/196)) / 3.92
    const se = Math.hypot(Math.log(306 / 294), Math.log(204 / 196)) / 3.92;
    expect(at(4).outcome).toBe('faster');
    expect(at(4).comparison!.change).toBeCloseTo(0.5, 12);
    expect(at(4).comparison!.changeHalfWidth).toBeCloseTo(
      (1.5 * (Math.exp(1.96 * se) - Math.exp(-1.96 * se))) / 2,
      3,
    );
    expect(at(2).outcome).toBe('no interval');
    expect(at(8).outcome).toBe('only one');
    expect(m.contextLines).toEqual([
      // 8 is Over capacity for np=2 and np=4 (so 4 users each); np=8 met every level measured (40 tok/s each at 8)
      'at 1K, np=8 serves the most users under the service level: at least 8 (np=2 and np=4: 4); the most total tok/s: np=8, 320.0 tok/s at 8 users, the only configuration that measured it; at one user the configurations do not differ.',
    ]);
    expect(m.configs.map((c) => c.label)).toEqual(['np=2', 'np=4', 'np=8']);
  });

  it('a cell where requests queued is worse than one where they did not; the words count users first', () => {
    // The review's llama.cpp sweep: -np 2 at 4 users queued (first token 1,055 ms against 44 ms) with a total tok/s
    // within noise of -np 4's (440 vs 438.7, ±5 each). It read "-np=4 gives the most total tok/s (438.7 at 4
    // users), but not significantly more than -np=2".
    const file = sweepFile(['-np=2', '-np=4']);
    const at = (ttftMs: number, status: DecodeCell['status'] = 'Valid') => ({ ttftMs, status });
    const results = new Map([
      [
        'k0',
        result('k0', {
          1: [100, 2, null, at(40)],
          2: [180, 3, null, at(42)],
          4: [440, 5, 110, at(1055, 'Requests queued')],
        }),
      ],
      [
        'k1',
        result('k1', { 1: [101, 2, null, at(40)], 2: [181, 3, null, at(42)], 4: [438.7, 5, 109.7, at(44)] }),
      ],
    ]);
    for (const r of results.values()) delete r.config.slo; // judged by the default level (chat) unless --slo
    const m = sweepModel(file, results);
    const four = m.cells.find((c) => c.concurrency === 4)!;
    expect(four.outcome).toBe('runner-up queues');
    expect(four.candidates.map((c) => m.configs[c.config]!.letter)).toEqual(['B', 'A']);
    expect(four.comparison).toBeUndefined();
    // Under chat (first token within 2 s, 20 tok/s each) both serve every level measured, judged by their medians
    // (no per-request data here): a tie on users, which the cell at 4 breaks.
    expect(m.sloFrom).toBe('default');
    expect(m.users[0]!.byConfig.map((u) => [u.users, u.atLeast])).toEqual([
      [4, true],
      [4, true],
    ]);
    expect(m.contextLines).toEqual([
      'at 1K, -np=2 and -np=4 serve the most users under the service level: at least 4 each, but at 4 users -np=2 queues requests and -np=4 does not; the most total tok/s: -np=4, 438.7 tok/s at 4 users; at one user the configurations do not differ.',
    ]);
    // Under --slo ttft=500ms -np=2 serves 2 (its 1,055 ms median misses 500 ms at 4)
    const strict = sweepModel(file, results, { slo: parseServiceLevel('ttft=500ms') as ServiceLevel });
    expect(strict.sloFrom).toBe('given');
    expect(strict.users[0]!.byConfig.map((u) => u.users)).toEqual([2, 4]);
    expect(strict.contextLines[0]).toBe(
      'at 1K, -np=4 serves the most users under the service level: at least 4 (-np=2: 2); the most total tok/s: -np=4, 438.7 tok/s at 4 users, where -np=2 queues requests; at one user the configurations do not differ.',
    );
    const md = renderSweep(file, results, 'md', { slo: parseServiceLevel('ttft=500ms') as ServiceLevel });
    expect(md).toContain('| 4 | 440.0 Q | **438.7** | B (-np=2 queues) |');
    expect(md).toContain('| Users | 2 | 4+ | — |');
    expect(md).toContain(
      'Service level (--slo): first token within 500 ms, for 90% of requests; the users at once are counted under it.',
    );
    const text = stripAnsi(renderSweep(file, results, 'txt', { width: 80 }));
    expect(text).toMatch(/\n {3}4 {3}440\.0Q {3}438\.7 {3}B, A Q\n/);
    const json = JSON.parse(renderSweep(file, results, 'json')) as {
      users: Array<{ leaders: string[]; configurations: Array<{ users: number }> }>;
    };
    expect(json.users[0]!.leaders).toEqual(['k0', 'k1']);
    // runs that hold different levels are each judged by their own, and the words say so
    results.get('k0')!.config.slo = parseServiceLevel('ttft=1s') as ServiceLevel;
    expect(serviceLevelText(sweepModel(file, results))).toBe(
      "Users at once under each run's own service level (the runs hold different ones; --slo judges all by one).",
    );
  });

  it('puts the Pareto frontier per GPU when every run knows its GPU count', () => {
    const { file, results } = three();
    const m = sweepModel(file, results);
    expect(m.perGpu).toBe(true);
    const front = m.pareto
      .filter((p) => p.frontier)
      .map((p) => [m.configs[p.config]!.letter, p.concurrency, p.x, p.y]);
    // per request tok/s here = total / N; x = total / 2 GPUs: B×1 (50.5, 101), B×2 (90, 90), B×4 (150, 75), C×8 (160, 40)
    expect(front.sort()).toEqual(
      [
        ['B', 1, 50.5, 101],
        ['B', 2, 90, 90],
        ['B', 4, 150, 75],
        ['C', 8, 160, 40],
      ].sort(),
    );
    results.set('k2', result('k2', { 1: [99, 2] }, 1));
    results.get('k2')!.hardware.gpuCount = undefined;
    expect(sweepModel(file, results).perGpu).toBe(false);
  });

  it("plots each cell's own per-request tok/s (the median request's), not total ÷ N", () => {
    // The review's sweep: B × 4 printed 1,146.0 tok/s per request (total ÷ 4 is 1,123.4), B × 8 933.3 (÷ 8:
    // 910.7), and A × 8 ran 4 at once, each fast (queued). By per request A × 8 beats B × 4 on both axes.
    const file = sweepFile(['max-num-seqs=4', 'max-num-seqs=8']);
    const results = new Map([
      ['k0', result('k0', { 4: [4403, 20, 1102.5], 8: [4686, 20, 1171.2] }, 1)],
      ['k1', result('k1', { 2: [2400, 10, null], 4: [4493.7, 20, 1146], 8: [7285.8, 30, 933.3] }, 1)],
    ]);
    const m = sweepModel(file, results);
    const front = m.pareto
      .filter((p) => p.frontier)
      .map((p) => [m.configs[p.config]!.letter, p.concurrency, p.x, p.y]);
    expect(front.sort()).toEqual(
      [
        ['A', 8, 4686, 1171.2],
        ['B', 8, 7285.8, 933.3],
      ].sort(),
    );
    // B × 2 has no per-request figure: not on the chart, and said so.
    expect(m.pareto.find((p) => p.concurrency === 2)).toBeUndefined();
    expect(m.unplaced).toBe(1);
    const text = stripAnsi(renderSweep(file, results, 'txt', { width: 80 }));
    expect(text).toContain('· started 2026-12-01 10:00 UTC\n');
    expect(text).toContain('Pareto frontier · per-request tok/s against total tok/s');
    expect(text).toContain('(2 of 4 measured cells; 1 without a per-request figure left off)');
    expect(text).toMatch(/\n {6}1,171\.2 {6}4,686\.0 {2}1K × 8 +A max-num-seqs=4\n/);
    expect(text).toMatch(/\n {8}933\.3 {6}7,285\.8 {2}1K × 8 +B max-num-seqs=8\n/);
    const md = renderSweep(file, results, 'md');
    expect(md).toMatch(/\| Per request tok\/s +\| Total tok\/s/);
    expect(md).toContain('| 933.3 ');
    expect(md).toContain('started 2026-12-01 10:00 UTC');
    const html = renderSweep(file, results, 'html');
    expect(html).toContain('per-request tok/s (median request)');
    expect(html).toContain('<tr><td>1,171.2</td><td>4,686.0</td>');
    // Frontier points keep their configuration's colour, ringed (the chart is drawn at two widths); the
    // frontier's own series is only its dashed line, so no dot of it covers a configuration's.
    const svg = html.slice(html.indexOf('id="pareto"'));
    expect(svg.match(/<circle class="ring"/g)).toHaveLength(2 * 2);
    expect(svg).not.toMatch(/<circle(?! class="ring")[^>]*(fill|stroke)="var\(--ink/);
    const ringed = [...svg.matchAll(/<circle class="ring"[^>]*\/><circle [^>]*fill="([^"]+)"/g)].map(
      (x) => x[1],
    );
    expect(new Set(ringed).size).toBe(2); // A's colour and B's
  });

  it('finds the same frontier as a brute-force check on random points', () => {
    const rnd = mulberry32(7);
    for (let trial = 0; trial < 50; trial++) {
      const pts = Array.from({ length: 30 }, () => ({
        x: Math.round(rnd() * 20),
        y: Math.round(rnd() * 20),
      }));
      const brute = pts.filter((p) => !pts.some((q) => q.x >= p.x && q.y >= p.y && (q.x > p.x || q.y > p.y)));
      const got = paretoFrontier(pts);
      // duplicates of a frontier point: one of them is enough
      expect(new Set([...got].map((p) => `${p.x},${p.y}`))).toEqual(
        new Set(brute.map((p) => `${p.x},${p.y}`)),
      );
    }
  });

  it('drops from labels only the words every configuration shares', () => {
    expect(shortLabels(['np=2 c=64K m=x', 'np=4 c=64K m=x'])).toEqual(['np=2', 'np=4']);
    expect(shortLabels(['small', 'big np=8'])).toEqual(['small', 'big np=8']);
    expect(shortLabels(['np=2'])).toEqual(['np=2']);
  });
});

describe('sweep report formats', () => {
  it('txt stays within 80 columns, with a failed configuration, its reason and log lines', () => {
    const names = Array.from({ length: 8 }, (_, i) => `max_num_seqs=${2 ** i} max_num_batched_tokens=8192`);
    const file = sweepFile(names, { 7: 'failed' });
    const results = new Map(
      names.slice(0, 7).map((_, i) => [`k${i}`, result(`k${i}`, { 1: [100 + i, 2], 4: [200 + 40 * i, 4] })]),
    );
    const text = stripAnsi(renderSweep(file, results, 'txt', { width: 80 }));
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(text).toContain('H max_num_seqs=128 FAILED (no result)');
    expect(text).toContain('| error: unknown argument: --bogus');
    expect(text).toContain('Total tok/s · 1K context (1/2)');
    expect(text).toMatch(/\n {3}4 .* G \+\d+%±\d+%/);
  });

  it('md, csv, json and html carry the same verdicts', () => {
    const { file, results } = three();
    const md = renderSweep(file, results, 'md');
    // the Best cell says the margin once (it said "B +50%±4% (+50% ± 4% over np=2)")
    expect(md).toContain('| 4 | 200.0 | **300.0** | 150.0 | B +50% ± 4% over np=2 |');
    expect(md).toContain('| 1 | 100.0 | 101.0 | 99.0 | ≈ B (np=2 within noise) |');
    expect(md).toContain('| 2 | 150.0 | 180.0 | 170.0 | B +6% over np=8 (no interval) |'); // 180 / 170
    expect(md).toContain('| Users | 4 | 4 | 8+ | — |');
    for (const row of md.split('\n').filter((l) => l.startsWith('| ')))
      expect(row.match(/%/g)?.length ?? 0, row).toBeLessThanOrEqual(2);
    const csv = renderSweep(file, results, 'csv').split('\r\n');
    expect(csv[0]).toMatch(/^Context tokens,Requests at once,Configuration,Label,Status,Total tok\/s/);
    expect(csv.find((l) => l.startsWith('1024,4,k1,'))).toMatch(
      /^1024,4,k1,np=4,Valid,300,294,306,75,1,faster,0\.5,0\.\d{1,4},true,4$/, // the half width to 4 decimals; 4 users
    );
    const json = JSON.parse(renderSweep(file, results, 'json')) as { cells: Array<Record<string, unknown>> };
    expect(json.cells.find((c) => c.concurrency === 4)).toMatchObject({
      best: 'k1',
      runnerUp: 'k0',
      outcome: 'faster',
    });
    const html = renderSweep(file, results, 'html');
    expect(html).toContain('data-outcome="faster"');
    expect(html).not.toMatch(/<script src|<link rel="stylesheet"/);
  });
});
