import { afterAll, describe, expect, it } from 'vitest';
import type { RequestLine } from '../../src/results/io.js';
import type { DecodeCell } from '../../src/results/schema.js';
import type { SimHandle, TruthRecord } from '../../src/sim/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { referenceFigures } from '../helpers/reference-figures.js';
import { fastFlags, readRun, runDirs, startTestSim, tempDir, truthById } from './run-helpers.js';
import { decodeKey } from '../../src/results/cell-key.js';

// Acceptance: the real CLI against the sim. What the client controls is checked exactly: every token counted
// as the sim's ground truth says, chunk by chunk, and every figure of result.json recomputed from requests.jsonl
// by an independent implementation of docs/method.md. How close the client's clock comes to the sim's is a
// measurement of the machine, not a pass/fail: `npm run bench:fidelity` (docs/performance.md).
const variants = [
  { name: 'single-token chunks with reasoning tokens', overrides: { reasoningTokens: 8 } },
  {
    name: 'multi-token chunks (speculative decoding) with reasoning tokens',
    overrides: { reasoningTokens: 8, speculative: { k: 3, meanTokens: 2.5 } },
  },
];

const cellLines = (cell: DecodeCell, lines: RequestLine[]) =>
  lines.filter(
    (l) =>
      l.cell === decodeKey(cell.contextTokens, cell.concurrency) &&
      (l.phase === 'ramp' || l.phase === 'window'),
  );

function checkFigures(cell: DecodeCell, mine: RequestLine[]) {
  const where = `${cell.contextTokens}x${cell.concurrency}`;
  const ref = referenceFigures(
    mine.map((l) => ({
      sentAtMs: l.sentAtMs,
      ...(l.firstTokenAtMs !== undefined ? { firstTokenAtMs: l.firstTokenAtMs } : {}),
      endAtMs: l.endAtMs,
      chunks: l.chunks,
      ok: l.status === 'ok',
    })),
    cell.windowOpenMs!,
    cell.windowCloseMs!,
  );
  // requests.jsonl keeps chunk times to the microsecond: the figures agree to that precision
  expect(ref.outputTokens, `${where} tokens`).toBeGreaterThan(0);
  expect(cell.outputTokens, `${where} tokens`).toBe(ref.outputTokens);
  expect(cell.completed, `${where} completed`).toBe(ref.completed);
  expect(cell.totalTokensPerS!, `${where} total`).toBeCloseTo(ref.totalTokensPerS, 3);
  expect(cell.perRequestTokensPerS!, `${where} per request`).toBeCloseTo(ref.perRequestTokensPerS!, 1);
  expect(cell.tbtMs!, `${where} tbt`).toBeCloseTo(ref.tbtMs!, 2);
  expect(cell.ttftMs!, `${where} ttft`).toBeCloseTo(ref.ttftMs!, 2);
  expect(cell.avgActive!, `${where} active`).toBeCloseTo(ref.avgActive, 3);
}

// Exact token counts, request by request and chunk by chunk; and no chunk received before the sim sent it.
function checkCounts(mine: RequestLine[], truth: Map<string, TruthRecord>) {
  const stats = { chunked: 0, reasoning: 0, finished: 0 };
  for (const l of mine) {
    const tr = truth.get(l.requestId);
    // A request aborted at the close before its first token may never have reached the sim's engine (the socket
    // was reset with its bytes unread): it carries no token to check.
    if (!tr && l.chunks.length === 0 && l.errorKind === 'aborted') continue;
    expect(tr, `${l.requestId} has no ground truth`).toBeDefined();
    const got = l.chunks.map(([, n]) => n);
    expect(
      got.reduce((a, n) => a + n, 0),
      l.requestId,
    ).toBe(l.outputTokens);
    expect(got, l.requestId).toEqual(tr!.chunks.slice(0, got.length).map(([, n]) => n));
    l.chunks.forEach(([t], i) => expect(t, l.requestId).toBeGreaterThanOrEqual(tr!.chunks[i]![0] - 1));
    if (l.status === 'ok') {
      expect(l.outputTokens, l.requestId).toBe(tr!.outputTokens);
      expect(got.length, l.requestId).toBe(tr!.chunks.length);
      stats.finished += 1;
    }
    if (got.some((n) => n > 1)) stats.chunked += 1;
    if ((tr!.reasoningTokens ?? 0) > 0) stats.reasoning += 1;
  }
  return stats;
}

describe.each(variants)('run matrix against the sim: $name', ({ overrides }) => {
  let sim: SimHandle | undefined;
  afterAll(async () => sim?.close());

  it('measures 3 contexts x 4 concurrency levels, every token as the truth log says', async () => {
    sim = await startTestSim({ overrides });
    const out = tempDir('matrix');
    const r = await runCliInProcess([
      'run',
      ...fastFlags(sim.baseUrl, out),
      ...['--contexts', '1K,2K,4K', '--concurrency', '1,2,4,8', '--max-output', '256'],
    ]);
    expect(r.stderr).not.toMatch(/error \[/);
    expect(r.code).toBe(0);
    const [dir] = runDirs(out);
    const { result, lines } = readRun(dir!);
    expect(result.status).toBe('complete');
    expect(result.decode).toHaveLength(12);
    expect(result.prefill.map((p) => p.contextTokens)).toEqual([1024, 2048, 4096, 32512]);
    for (const p of result.prefill) expect(p.status).toBe('Valid');
    // aborted requests reach the truth log when the sim notices the closed socket
    const ids = lines.filter((l) => l.chunks.length > 0).map((l) => l.requestId);
    for (let i = 0; i < 300 && !ids.every((id) => truthById(sim!).has(id)); i++)
      await new Promise((res) => setTimeout(res, 50));
    const truth = truthById(sim);
    const total = { chunked: 0, reasoning: 0, finished: 0 };
    for (const cell of result.decode) {
      const mine = cellLines(cell, lines);
      checkFigures(cell, mine);
      const s = checkCounts(mine, truth);
      for (const k of ['chunked', 'reasoning', 'finished'] as const) total[k] += s[k];
      // the close aborts every request still streaming: N slots, N in flight
      expect(cell.abortedAtClose).toBe(cell.concurrency);
    }
    expect(total.finished).toBeGreaterThan(12);
    expect(total.reasoning).toBeGreaterThan(0);
    // cache warm-up before each cell: the cell's requests hit the prefix cache
    const hits = result.decode.flatMap((c) => (typeof c.cacheHitRatio === 'number' ? [c.cacheHitRatio] : []));
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) expect(h).toBeGreaterThan(0.9);
    if (overrides.speculative) {
      // several tokens per chunk, and the acceptance length the profile draws from
      expect(total.chunked).toBeGreaterThan(10);
      const acc = result.decode.flatMap((c) =>
        typeof c.specAcceptanceLength === 'number' ? [c.specAcceptanceLength] : [],
      );
      expect(acc.length).toBeGreaterThanOrEqual(6);
      for (const a of acc) expect(Math.abs(a - 2.5)).toBeLessThan(0.4);
    }
  });
});
