// One cell of bench:ceiling judged (pure): the runner's client self-check (judgeClient through clientCellFigures,
// as the runner applies it to cell.client), exact token counts against the sim's truth, and whether the sim
// itself delivered the offered load (if it did not, the load never reached the client: no ceiling of the client).
import type { DecodeCellRun } from '../../src/bench/decode-cell.js';
import { clientCellFigures } from '../../src/client/cell-figures.js';
import type { TruthRecord } from '../../src/sim/index.js';
import { windowFigures } from '../../src/stats/window.js';
import { quantile } from './out.js';
import { countsExact, truthAsTimed } from './truth.js';

export type Verdict = 'green' | 'red' | 'engine-bound';

// Below this share of the offered tokens per second the sim fell behind its own schedule.
export const ENGINE_DELIVERED_SHARE = 0.9;

export interface CeilingCell {
  streams: number;
  offeredTokPerS: number;
  engineTokPerS: number | null; // what the sim sent in the window (truth)
  clientTokPerS: number | null; // what the client received in the window (the cell's figure)
  countsExact: string;
  errors: number;
  recvP50Ms: number | null; // sim write -> client stamp, chunks in the window
  recvP99Ms: number | null;
  loopDelayP99Ms: number | null;
  cpuPctPerThread: number | null;
  busiestLoopPct: number | null; // the busiest thread's event-loop utilization, in %
  busiestLoop: string | null;
  processCpuPctOfCore: number | null; // all client threads together, % of one core
  verdict: Verdict;
  reason: string | null;
}

export function judgeCeilingCell(
  run: DecodeCellRun,
  truth: ReadonlyMap<string, TruthRecord>,
  streams: number,
  offeredTokPerS: number,
): CeilingCell {
  const { window } = run;
  const records = run.sent.map((s) => s.record);
  const f = windowFigures(records, window);
  const { client } = clientCellFigures(records, window, {
    ...(run.clientLoad ? { load: run.clientLoad } : {}),
    tbtMs: f.tbtMs,
  });
  let exact = 0;
  let seen = 0;
  const recv: number[] = [];
  const timed = [];
  for (const s of run.sent) {
    const t = truth.get(s.requestId);
    if (!t) continue; // aborted at the close before the sim read it
    seen += 1;
    timed.push(truthAsTimed(t));
    const line = {
      chunks: s.record.chunks,
      status: s.record.ok ? 'ok' : 'error',
      outputTokens: s.record.outputTokens,
    };
    if (countsExact(line as Parameters<typeof countsExact>[0], t)) exact += 1;
    s.record.chunks.forEach(([at], i) => {
      const sent = t.chunks[i]?.[0];
      if (sent !== undefined && at >= window.openMs && at < window.closeMs) recv.push(at - sent);
    });
  }
  const errors = records.filter((r) => !r.ok && r.error?.kind !== 'aborted').length;
  const engineTokPerS = windowFigures(timed, window).totalTokensPerS;
  const reasons: string[] = [];
  if (run.rampTimedOut) reasons.push('ramp timed out (not every stream had a first token)');
  if (errors > 0) reasons.push(`${errors} request errors`);
  if (exact < seen) reasons.push(`token counts off in ${seen - exact} of ${seen} requests`);
  if (client?.clientBound) reasons.push(`self-check: ${client.reason}`);
  if (!client) reasons.push('no self-check (no monitor)');
  const engineShort = engineTokPerS === null || engineTokPerS < ENGINE_DELIVERED_SHARE * offeredTokPerS;
  const verdict: Verdict = reasons.length ? 'red' : engineShort ? 'engine-bound' : 'green';
  if (verdict === 'engine-bound')
    reasons.push(
      `the sim sent ${Math.round(engineTokPerS ?? 0)} of ${Math.round(offeredTokPerS)} tok/s offered`,
    );
  return {
    streams,
    offeredTokPerS,
    engineTokPerS,
    clientTokPerS: f.totalTokensPerS,
    countsExact: `${exact}/${seen}`,
    errors,
    recvP50Ms: quantile(recv, 0.5),
    recvP99Ms: quantile(recv, 0.99),
    loopDelayP99Ms: client?.loopDelayP99Ms ?? null,
    cpuPctPerThread: client?.cpuPctPerThread ?? null,
    busiestLoopPct: client?.busiestLoopPct ?? null,
    busiestLoop: client?.busiestLoop ?? null,
    processCpuPctOfCore: client ? client.cpuPctPerThread * client.threads : null,
    verdict,
    reason: reasons.length ? reasons.join('; ') : null,
  };
}
