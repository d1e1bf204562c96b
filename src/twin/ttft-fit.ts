import type { Profile } from '../sim/profile-schema.js';
import { apiDelayMs } from '../sim/curves.js';
import { overCapacity, simulateCell, type CellFigures } from '../sim/what-if.js';
import { fitApiSerial, withSerialShare } from './api-serial.js';
import { apiCells, fitProfile, type FitOptions, type FitState, type ParamFit } from './fit.js';
import type { DecodeObs, Observations } from './observe.js';
import { restartGapMs } from './restart-loss.js';

// The TTFT side of a fit (docs/twin.md "TTFT"). A cell's TTFT is API server time (its serial part queued behind
// the other requests that arrived with it) + the wait for the engine's current step + the request's own prefill
// at the cached context, chunked with the other prefills of that step. The engine's part is the twin's own
// simulation; the API server time is what the warm TTFT of one request leaves, and its serial part what the
// cells with several requests at once ask for.

/** The twin's figures for a measured cell (null when over its KV capacity). */
export function twinCell(p: Profile, d: DecodeObs, restartLossMsPerMTokens: number): CellFigures | null {
  if (overCapacity(p, d.contextTokens, d.concurrency, d.maxOutput)) return null;
  return simulateCell(p, {
    contextTokens: d.contextTokens,
    concurrency: d.concurrency,
    maxOutput: d.maxOutput,
    windowS: d.windowS,
    resendGapMs: restartGapMs(restartLossMsPerMTokens, d.contextTokens),
    cachedSlots: d.previousLevel,
  });
}

/** The twin's figures of `cells` for a profile, once per key (the fits simulate the same cells many times). */
export type SimulateAt = (key: string, p: Profile, gapMsPerMTokens: number) => Array<CellFigures | null>;

export interface TtftFit {
  fit: FitState; // the profile's decode, prefill, KV and API time
  profile: Profile; // with the serial time
}

const logErr2 = (sim: Array<CellFigures | null>, cells: readonly DecodeObs[], idx: number[]) =>
  idx.reduce((s, i) => {
    const t = sim[i]?.ttftMs;
    return t && t > 0 ? s + Math.log(t / cells[i]!.ttftMs!) ** 2 : s + 1;
  }, 0);

// An API time shorter than one decode step may be the engine's own prefill step (a forward pass for the first
// token) rather than API server time: one request alone cannot tell them apart, several at once can (a request
// still at the API server misses the step that starts when it arrives).
function placeFixedPart(fit: FitState, cells: readonly DecodeObs[], at: SimulateAt): void {
  const p = fit.profile;
  const idx = cells
    .map((d, i) => (d.status === 'Valid' && d.concurrency >= 2 && d.ttftMs ? i : -1))
    .filter((i) => i >= 0);
  const a = p.requestOverheadMs;
  const longest = Math.max(...cells.map((d) => d.contextTokens));
  if (a <= 0 || apiDelayMs(p, longest) > p.decodeStepMs[0]![1] || idx.length === 0) return;
  const inEngine: Profile = { ...p, requestOverheadMs: 0, apiTokensPerS: 0, prefillOnlyStepMs: a };
  const apiSide = logErr2(at('fixed part at the API', p, 0), cells, idx);
  if (logErr2(at('fixed part in the engine', inEngine, 0), cells, idx) >= apiSide) return;
  fit.profile = inEngine;
  const api = fit.params.find((q) => q.name === 'API server time');
  if (api) {
    api.value = '0';
    api.quality = `the warm TTFT's ${a} ms is the engine's prefill step, not the API server (the cells with several requests at once say so)`;
  }
}

export function fitTtftSide(
  obs: Observations,
  opts: FitOptions,
  cells: readonly DecodeObs[],
  at: SimulateAt,
): TtftFit & { serialParam: ParamFit; serialPinned: boolean } {
  // Twice: the API server time is a warm TTFT less the engine's own part, which the first fit can simulate.
  const first = fitProfile(obs, opts);
  const engineOnly = { ...first.profile, requestOverheadMs: 0, apiTokensPerS: 0 };
  const engine = new Map(apiCells(cells).map((d) => [d, twinCell(engineOnly, d, 0)?.ttftMs ?? undefined]));
  const fit = fitProfile(obs, opts, (d) => engine.get(d));
  placeFixedPart(fit, cells, at);
  const serial = fitApiSerial(fit.profile, cells, (share) =>
    at(`share ${share}`, withSerialShare(fit.profile, share), 0),
  );
  return {
    fit,
    profile: { ...fit.profile, apiSerialMs: serial.serialMs, apiSerialTokensPerS: serial.serialTokensPerS },
    serialParam: serial.param,
    serialPinned: serial.pinned,
  };
}
