import { BenchError } from '../errors.js';
import { cellName, contextLabel, fmtInt } from '../format/index.js';
import { FLAVORS, type Flavor, type Profile } from '../sim/profile-schema.js';
import { validateProfile } from '../sim/profiles.js';
import { relativeLeastSquares } from './lsq.js';
import { demand, type DecodeObs, type Observations, type PrefillObs } from './observe.js';
import { firstTokenDeadlineMs } from '../sim/what-if.js';
import { profilePoints, stepAt, type StepCurve } from './step-model.js';
import { isMeasured, type Seats, type SeatsBasis } from '../cell-rules.js';

// Fits a sim profile (src/sim/profile-schema.ts) to measured cells. Linear parts by least squares (decode step
// time against batch size and context; API time against context), the rest read off directly (max sequences
// from queued cells, KV capacity from which cells ran and which were over capacity, prefill speed per point).
// Deterministic: no random search, no seeds.

export interface FitOptions {
  name?: string;
  kvCapacityTokens?: number; // what the data cannot pin, the user may know
  maxNumSeqs?: number;
  contextSlopeMsPerMTokens?: number;
  kvUnified?: boolean; // llama.cpp: the slots share one pool (src/engines/llamacpp.ts)
}

export interface ParamFit {
  name: string;
  value: string;
  quality: string; // standard error, bracket, or why it is only a bound
  from: string; // which cells pinned it
}

export interface FitState {
  profile: Profile;
  params: ParamFit[];
  notes: string[];
  kvCapacity: { lo: number; hi: number | null; source: string };
  maxNumSeqs: { value: number; pinned: boolean };
  specMeanTokens: number;
  ranges: { contexts: [number, number]; batch: [number, number]; prefill: [number, number] };
}

export const cellLabel = cellName;

const refuse = (message: string, hint: string): never => {
  throw new BenchError('USAGE', message, { hint });
};

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const ran = (d: DecodeObs) => isMeasured(d.status);

const pct = (se: number | null, v: number) =>
  se === null ? 'exact fit (no spare cells to judge it)' : `± ${((100 * se) / Math.abs(v)).toFixed(1)}%`;

function listCells(cells: ReadonlyArray<{ contextTokens: number; concurrency: number }>, max = 4): string {
  const names = cells.slice(0, max).map(cellLabel);
  return names.join(', ') + (cells.length > max ? ` and ${cells.length - max} more` : '');
}

// Requests queued because the engine runs at most maxNumSeqs at once: the seats the queued cells showed, read as the
// answer reads them (src/cell-rules.ts queuedSeats: the server's running gauge or the client's ceiling; imported
// results keep only the average active), as long as they reach every concurrency that ran unqueued (a cell queued
// below that queued for KV, not for seats).
const SEATS_BASIS: Record<SeatsBasis, [label: string, note: string]> = {
  'server running': ["the server's median running", ''],
  'client ceiling': ['the most streaming at once', ' (client timeline)'],
  'server most running': ["the server's most running", ''],
  'average active': ['average active', ' (no running count in these results)'],
};

function fitMaxNumSeqs(cells: DecodeObs[], opts: FitOptions, params: ParamFit[]): FitState['maxNumSeqs'] {
  // N seats at least: a cell that ran unqueued, or one whose N requests all streamed at once (queued or not)
  const seated = cells.filter((d) => d.status === 'Valid' || (ran(d) && d.allStreamed));
  const validMax = Math.max(0, ...seated.map((d) => d.concurrency));
  if (opts.maxNumSeqs !== undefined) {
    params.push({
      name: 'max running sequences',
      value: String(opts.maxNumSeqs),
      quality: 'given',
      from: '--max-num-seqs',
    });
    return { value: opts.maxNumSeqs, pinned: true };
  }
  const seat = cells.filter(
    (d): d is DecodeObs & { seats: Seats } =>
      d.status === 'Requests queued' && d.seats !== null && d.seats.seats >= validMax,
  );
  if (seat.length > 0) {
    const v = Math.max(...seat.map((d) => d.seats.seats));
    const bases = [...new Set(seat.map((d) => d.seats.basis))];
    // the average's decimals say how far below the seats it sat; the counts are whole
    const shown = seat.map((d) =>
      d.seats.basis === 'average active' && d.avgActive !== null ? d.avgActive : d.seats.seats,
    );
    const digits = bases.includes('average active') ? 1 : 0;
    const range = `${Math.min(...shown).toFixed(digits)}–${Math.max(...shown).toFixed(digits)}`;
    params.push({
      name: 'max running sequences',
      value: String(v),
      quality:
        bases.length === 1
          ? `${SEATS_BASIS[bases[0]!][0]} ${range} in queued cells${SEATS_BASIS[bases[0]!][1]}`
          : `in queued cells: ${seat.map((d) => `${cellLabel(d)} ${SEATS_BASIS[d.seats.basis][0]} ${d.seats.seats}`).join(', ')}`,
      from: listCells(seat),
    });
    return { value: v, pinned: true };
  }
  const top = seated.find((d) => d.concurrency === validMax);
  const queued = cells.some((d) => d.status === 'Requests queued');
  params.push({
    name: 'max running sequences',
    value: `>= ${validMax}`,
    quality: `lower bound only: ${queued ? 'no queued cell showed fewer seats than requests' : 'no cell queued'}`,
    from: `${top ? `${cellLabel(top)} ran ${top.status === 'Valid' ? 'unqueued' : `all ${top.concurrency} at once`}` : 'the largest cell ran unqueued'}; a cell above it (e.g. ${contextLabel(top?.contextTokens ?? 8192)} × ${validMax * 2}) would pin it`,
  });
  return { value: validMax, pinned: false };
}

// Speculative decoding moves several tokens per step: the server's acceptance length, or the client's chunk gap
// against its time between tokens. Without either, per-token times are fitted directly (same throughput).
function fitSpeculative(cells: DecodeObs[], params: ParamFit[], notes: string[]): number {
  const accepted = cells.map((d) => d.specAcceptanceLength).filter((v): v is number => v !== null && v > 0);
  if (accepted.length > 0) {
    const m = median(accepted);
    params.push({
      name: 'speculative tokens per step',
      value: m.toFixed(2),
      quality: `server counters, ${Math.min(...accepted).toFixed(2)}–${Math.max(...accepted).toFixed(2)}`,
      from: `${accepted.length} cells`,
    });
    return m > 1.05 ? m : 1;
  }
  const ratios = cells
    .filter((d) => d.chunkGapP50Ms !== null && d.tbtMs !== null && d.tbtMs > 0)
    .map((d) => d.chunkGapP50Ms! / d.tbtMs!);
  if (ratios.length > 0) {
    const m = median(ratios);
    params.push({
      name: 'speculative tokens per step',
      value: m > 1.1 ? m.toFixed(2) : 'none',
      quality: `chunk gap / time between tokens, ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
      from: `${ratios.length} cells`,
    });
    return m > 1.1 ? m : 1;
  }
  notes.push(
    'speculative decoding: not pinned (no server acceptance counters or chunk gaps); the twin decodes one token per step of the per-token time, which predicts the same tok/s but not chunk sizes.',
  );
  return 1;
}

// Whether a cell's warm-up outlasted the client's first-token deadline (docs/twin.md "TTFT"): its cold slots (those
// the cell before did not leave cached) at the measured prefill speed of the nearest context.
function warmUpOutlasts(d: DecodeObs, prefill: readonly PrefillObs[]): boolean {
  if (prefill.length === 0) return false;
  const far = (x: PrefillObs) => Math.abs(Math.log(x.contextTokens / d.contextTokens));
  const near = prefill.reduce((a, b) => (far(b) < far(a) ? b : a));
  const coldMs = ((d.concurrency - d.previousLevel) * d.contextTokens * 1000) / near.tokensPerS;
  return coldMs > firstTokenDeadlineMs(d.contextTokens);
}

interface DecodeFit {
  curve: StepCurve;
  slope: number;
}

/** One decode cell as an equation: per-step time `y` at batch `b` with `ctxM` million tokens in the batch. */
interface DecodeRow {
  d: DecodeObs;
  b: number;
  ctxM: number;
  y: number;
}

function fitDecode(
  cells: DecodeObs[],
  coldWarmUp: (d: DecodeObs) => boolean,
  maxNumSeqs: number,
  m: number,
  opts: FitOptions,
  params: ParamFit[],
  notes: string[],
): DecodeFit {
  const rows = decodeRows(cells, maxNumSeqs, m, notes, coldWarmUp);
  const knots = [...new Set(rows.map((r) => r.b))].sort((a, b) => a - b);
  const contextsAt = new Map<number, Set<number>>();
  for (const r of rows) contextsAt.set(r.b, (contextsAt.get(r.b) ?? new Set()).add(r.d.contextTokens));
  refuseUnpinnedDecode(rows, knots, contextsAt, opts.contextSlopeMsPerMTokens === undefined);
  const { ls, slope, slopeFree } = solveDecode(rows, knots, opts, notes);
  const ms = knots.map((_, i) => Math.max(0.01, ls.coef[i]!));
  knots.forEach((b, i) =>
    params.push({
      name: `decode step at batch ${b}`,
      value: `${ms[i]!.toFixed(2)} ms${m > 1 ? ` (${(ms[i]! / m).toFixed(2)} ms per token)` : ''}`,
      quality: pct(ls.se[i] ?? null, ms[i]!),
      from: listCells(rows.filter((r) => r.b === b).map((r) => r.d)),
    }),
  );
  const slopeSe = ls.se[knots.length];
  params.push({
    name: 'decode context slope',
    value: `${slope.toFixed(3)} ms per million tokens in the batch`,
    quality: slopeFree
      ? slopeSe === null
        ? 'exact fit (no spare cells to judge it)'
        : `± ${slopeSe!.toFixed(3)}`
      : opts.contextSlopeMsPerMTokens !== undefined
        ? 'given'
        : 'set to 0',
    from: slopeFree
      ? listCells(rows.filter((r) => (contextsAt.get(r.b)?.size ?? 0) >= 2).map((r) => r.d))
      : '--context-slope',
  });
  return { curve: { batch: knots, ms }, slope };
}

function decodeRows(
  cells: DecodeObs[],
  maxNumSeqs: number,
  m: number,
  notes: string[],
  coldWarmUp: (d: DecodeObs) => boolean,
): DecodeRow[] {
  // A cell that queued with no more requests than the engine has seats queued for KV room: its batch is
  // neither N nor the seats, so it says nothing clean about step time.
  const kvQueued = cells.filter((d) => d.status === 'Requests queued' && d.concurrency <= maxNumSeqs);
  if (kvQueued.length)
    notes.push(
      `decode steps: left out ${listCells(kvQueued)}, queued at no more than ${maxNumSeqs} requests (waiting for KV room, at an unknown batch).`,
    );
  // A cell whose warm-up outlasted the client's first-token deadline (or whose ramp timed out with a seat for
  // every request) ran prefill inside its window: its steps carry prompt chunks, so its rate is not the decode
  // step's. A queued cell's ramp times out anyway, waiting for seats.
  const prefilling = cells.filter(
    (d) => d.status !== 'Over capacity' && (coldWarmUp(d) || (d.rampTimedOut && d.concurrency <= maxNumSeqs)),
  );
  if (prefilling.length)
    notes.push(
      `decode steps: left out ${listCells(prefilling)}, whose cold prefill outlasted the warm-up (still running inside the window).`,
    );
  return cells
    .filter((d) => !prefilling.includes(d))
    .filter((d) => d.status === 'Valid' || (d.status === 'Requests queued' && d.concurrency > maxNumSeqs))
    .filter((d) => d.perRequestTokensPerS !== null && d.perRequestTokensPerS > 0)
    .map((d) => {
      const b = d.status === 'Valid' ? d.concurrency : Math.min(d.concurrency, maxNumSeqs);
      const outMean = Math.min(d.maxOutput, d.perRequestTokensPerS! * d.windowS) / 2;
      // A step moves the tokens the cell's own drafts had accepted (its counters), not the median cell's: one
      // cell's lucky acceptance is not a faster step (src/sim/speculative.ts draws each step's).
      const perStep =
        m > 1 && d.specAcceptanceLength && d.specAcceptanceLength > 1 ? d.specAcceptanceLength : m;
      return {
        d,
        b,
        ctxM: (b * (d.contextTokens + outMean)) / 1e6,
        y: (1000 * perStep) / d.perRequestTokensPerS!,
      };
    });
}

/** Refuses, saying which cell to add, when the cells cannot pin step time against batch or context. */
function refuseUnpinnedDecode(
  rows: DecodeRow[],
  knots: number[],
  contextsAt: Map<number, Set<number>>,
  slopeFree: boolean,
): void {
  if (rows.length === 0)
    refuse(
      'cannot fit decode: no decode cell was measured (Valid or Requests queued) in the results given.',
      'Fit on a run with at least two concurrency levels at one context and one at a second context (plan --for-twin picks them).',
    );
  if (knots.length < 2) {
    const c = rows[0]!.d;
    refuse(
      `cannot pin decode step time against batch size: every measured cell (${listCells(rows.map((r) => r.d))}) runs ${knots[0]} sequence(s) at once.`,
      `Add a cell at a second concurrency level, e.g. ${contextLabel(c.contextTokens)} × ${knots[0]! >= 16 ? 1 : 16}.`,
    );
  }
  if (slopeFree && ![...contextsAt.values()].some((s) => s.size >= 2)) {
    const r0 = rows[0]!;
    const far = Math.max(...rows.map((r) => r.d.contextTokens)) * 8;
    refuse(
      `cannot pin how decode slows with context: no concurrency level was measured at two contexts (${listCells(rows.map((r) => r.d))}).`,
      `Add e.g. ${contextLabel(far)} × ${r0.d.concurrency} beside ${cellLabel(r0.d)}, or pass --context-slope 0 to assume none.`,
    );
  }
}

/** Step time per batch knot (+ the context slope unless given), by relative least squares; a negative slope is noise. */
function solveDecode(rows: DecodeRow[], knots: number[], opts: FitOptions, notes: string[]) {
  const solve = (withSlope: boolean, s: number) => {
    const design = rows.map((r) => [
      ...knots.map((k) => (k === r.b ? 1 : 0)),
      ...(withSlope ? [r.ctxM] : []),
    ]);
    return relativeLeastSquares(
      design,
      rows.map((r) => r.y - (withSlope ? 0 : s * r.ctxM)),
    );
  };
  let slopeFree = opts.contextSlopeMsPerMTokens === undefined;
  let slope = opts.contextSlopeMsPerMTokens ?? 0;
  let ls = solve(slopeFree, slope);
  if (slopeFree && ls.coef[knots.length]! < 0) {
    notes.push('context slope: the fit found decode getting faster with context (noise); set to 0.');
    slopeFree = false;
    slope = 0;
    ls = solve(false, 0);
  } else if (slopeFree) slope = ls.coef[knots.length]!;
  return { ls, slope, slopeFree };
}

interface ApiFit {
  overheadMs: number;
  apiTokensPerS: number;
}

/** The engine's own part of a cell's TTFT (ms): what is left once the API server time is taken out. */
export type EngineTtft = (d: DecodeObs) => number | undefined;

/** The cells the API server time is read from: the lowest concurrency that ran Valid at each context. */
export function apiCells(cells: readonly DecodeObs[]): DecodeObs[] {
  const lowest = new Map<number, DecodeObs>();
  for (const d of cells) {
    if (d.status !== 'Valid' || d.ttftMs === null || !d.perRequestTokensPerS) continue;
    const cur = lowest.get(d.contextTokens);
    if (!cur || d.concurrency < cur.concurrency) lowest.set(d.contextTokens, d);
  }
  return [...lowest.values()];
}

// Warm TTFT at the lowest concurrency of each context ~ API server time (fixed + per prompt token) + the engine's
// part: one step unless the twin's own simulation of the cell says what it is (src/twin/twin.ts).
function fitApi(
  cells: DecodeObs[],
  m: number,
  params: ParamFit[],
  notes: string[],
  engineTtft?: EngineTtft,
): ApiFit {
  const step = (d: DecodeObs) => (1000 * m) / d.perRequestTokensPerS!;
  const pts = apiCells(cells)
    .map((d) => ({ d, y: d.ttftMs! - (engineTtft?.(d) ?? step(d)) }))
    .filter((p) => p.y > 0);
  if (pts.length === 0) {
    notes.push('API server time: no warm TTFT to read it from; assumed 0.');
    return { overheadMs: 0, apiTokensPerS: 0 };
  }
  let a: number;
  let b = 0;
  let quality: string;
  if (new Set(pts.map((p) => p.d.contextTokens)).size >= 2) {
    const ls = relativeLeastSquares(
      pts.map((p) => [1, p.d.contextTokens / 1000]),
      pts.map((p) => p.y),
    );
    [a, b] = [ls.coef[0]!, ls.coef[1]!];
    if (b < 0) [a, b] = [median(pts.map((p) => p.y)), 0];
    else if (a < 0) {
      const through = relativeLeastSquares(
        pts.map((p) => [p.d.contextTokens / 1000]),
        pts.map((p) => p.y),
      );
      [a, b] = [0, Math.max(0, through.coef[0]!)];
    }
    quality = ls.se[0] === null ? 'exact fit (no spare cells to judge it)' : `± ${ls.se[0]!.toFixed(0)} ms`;
  } else {
    a = median(pts.map((p) => p.y));
    quality = 'one context: per-token part not pinned, assumed 0';
  }
  const apiTokensPerS = b > 0 ? Math.round(1e6 / b) : 0;
  params.push({
    name: 'API server time',
    value: `${a.toFixed(0)} ms${apiTokensPerS ? ` + prompt / ${(apiTokensPerS / 1000).toFixed(0)}K tok/s` : ''}`,
    quality,
    from: listCells(pts.map((p) => p.d)),
  });
  return { overheadMs: Math.max(0, a), apiTokensPerS };
}

function fitPrefill(obs: Observations, api: ApiFit, params: ParamFit[]): Array<[number, number]> {
  if (obs.prefill.length === 0)
    refuse(
      'cannot pin prefill speed: the results have no Valid prefill point.',
      "Every run measures its first context's cold prefill; fit on a result that has one (the prefill table of the report).",
    );
  const byCtx = new Map<number, number[]>();
  for (const p of obs.prefill) {
    const apiMs = api.overheadMs + (api.apiTokensPerS > 0 ? (p.promptTokens * 1000) / api.apiTokensPerS : 0);
    // Where the API estimate eats most of a short prefill, trust the client's own rate.
    const engineMs = p.ttftMs - apiMs > 0.2 * p.ttftMs ? p.ttftMs - apiMs : p.ttftMs;
    byCtx.set(p.contextTokens, [...(byCtx.get(p.contextTokens) ?? []), (p.promptTokens * 1000) / engineMs]);
  }
  const pts = [...byCtx.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([c, rates]) => [c, Math.round(median(rates))] as [number, number]);
  params.push({
    name: 'prefill speed (engine)',
    value: pts.map(([c, r]) => `${contextLabel(c)} ${(r / 1000).toFixed(1)}K`).join(', ') + ' tok/s',
    quality:
      pts.length >= 2
        ? 'one value per measured point; log-interpolated between, flat below the first, along the last segment beyond'
        : 'one point: the same speed at every context',
    from: pts.map(([c]) => `prefill ${contextLabel(c)}`).join(', '),
  });
  return pts;
}

// The cell that would bound the capacity from above: at each measured context, the next planned level above the
// largest that ran there; of those, the one that asks for the least KV beyond what is known to fit.
function boundingCell(ranCells: DecodeObs[], levels: readonly number[], lo: number): DecodeObs | undefined {
  const next: DecodeObs[] = [];
  for (const c of new Set(ranCells.map((d) => d.contextTokens))) {
    const at = ranCells.filter((d) => d.contextTokens === c);
    const top = at.reduce((a, b) => (b.concurrency > a.concurrency ? b : a));
    const n = levels.find((l) => l > top.concurrency);
    if (n !== undefined) next.push({ ...top, concurrency: n });
  }
  return next.filter((d) => demand(d) > lo).sort((a, b) => demand(a) - demand(b))[0];
}

function fitKvCapacity(obs: Observations, opts: FitOptions, params: ParamFit[]): FitState['kvCapacity'] {
  const known =
    opts.kvCapacityTokens !== undefined
      ? { tokens: opts.kvCapacityTokens, source: 'given', quality: 'given', from: '--kv-capacity' }
      : obs.kvCapacityTokens !== undefined
        ? {
            tokens: obs.kvCapacityTokens,
            source: 'server',
            quality: 'reported by the server',
            from: 'the result',
          }
        : null;
  if (known) {
    params.push({
      name: 'KV capacity',
      value: `${fmtInt(known.tokens)} tokens`,
      quality: known.quality,
      from: known.from,
    });
    return { lo: known.tokens, hi: known.tokens, source: known.source };
  }
  const ranCells = obs.decode.filter(ran);
  const over = obs.decode.filter((d) => d.status === 'Over capacity');
  const lo = Math.max(0, ...ranCells.map(demand));
  const loCell = ranCells.find((d) => demand(d) === lo);
  if (over.length === 0) {
    const c = loCell ?? obs.decode[0]!;
    const next = boundingCell(ranCells, obs.levels, lo);
    refuse(
      `cannot pin the KV capacity: no cell was Over capacity and the results do not record the server's KV capacity (it held at least ${fmtInt(lo)} tokens at ${cellLabel(c)}).`,
      `Pass --kv-capacity TOKENS (the server's log states its KV cache size), or fit on runs that knew the capacity` +
        (next ? `, where ${cellLabel(next)}, the next level, is recorded Over capacity` : '') +
        ` (plan --for-twin --kv-capacity TOKENS or --base-url picks it; docs/twin.md).`,
    );
  }
  const hi = Math.min(...over.map(demand));
  const hiCell = over.find((d) => demand(d) === hi)!;
  if (hi <= lo)
    refuse(
      `cannot pin the KV capacity: ${cellLabel(hiCell)} was Over capacity (${fmtInt(hi)} tokens) but ${cellLabel(loCell!)} ran with ${fmtInt(lo)} tokens.`,
      'Fit on results of one server configuration, or pass --kv-capacity TOKENS.',
    );
  params.push({
    name: 'KV capacity',
    value: `${fmtInt(Math.sqrt(lo * hi))} tokens (geometric middle)`,
    quality: `between ${fmtInt(lo)} and ${fmtInt(hi)} tokens`,
    from: `${cellLabel(loCell!)} ran; ${cellLabel(hiCell)} was over capacity`,
  });
  return { lo, hi, source: 'statuses' };
}

export function fitProfile(obs: Observations, opts: FitOptions = {}, engineTtft?: EngineTtft): FitState {
  const params: ParamFit[] = [];
  const notes: string[] = [];
  const cells = obs.decode;
  const seqs = fitMaxNumSeqs(cells, opts, params);
  const m = fitSpeculative(cells, params, notes);
  const decode = fitDecode(cells, (d) => warmUpOutlasts(d, obs.prefill), seqs.value, m, opts, params, notes);
  const api = fitApi(cells, m, params, notes, engineTtft);
  const prefill = fitPrefill(obs, api, params);
  const kv = fitKvCapacity(obs, opts, params);
  const kvTokens = Math.round(kv.hi === null ? kv.lo : Math.sqrt(kv.lo * kv.hi));
  const ctxs = cells.filter(ran).map((d) => d.contextTokens);
  const maxOut = Math.max(...cells.map((d) => d.maxOutput));
  let maxModelLen = obs.maxModelLen ?? Math.max(...ctxs, ...prefill.map((p) => p[0])) + maxOut + 1024;
  maxModelLen = Math.min(maxModelLen, kvTokens);
  const batchTop = Math.max(256, 2 * Math.max(...decode.curve.batch), seqs.value);
  const flavor: Flavor = (FLAVORS as readonly string[]).includes(obs.engine)
    ? (obs.engine as Flavor)
    : 'vllm';
  const profile = validateProfile(
    {
      name: opts.name ?? `twin-${obs.model.replace(/[^A-Za-z0-9._-]+/g, '-')}`,
      description: `Twin fitted by llm-inference-bench fit on ${obs.sources.join(', ')}`,
      flavor,
      servedModelName: obs.model,
      maxModelLen,
      kvCapacityTokens: kvTokens,
      maxNumSeqs: seqs.value,
      maxBatchedTokens: 8192,
      prefillTokensPerS: prefill,
      decodeStepMs: profilePoints(decode.curve, batchTop),
      decodeContextSlopeMsPerMTokens: Math.round(decode.slope * 1000) / 1000,
      prefillOnlyStepMs: 0,
      requestOverheadMs: Math.round(api.overheadMs),
      apiTokensPerS: api.apiTokensPerS,
      speculative: m > 1 ? { k: Math.max(2, Math.ceil(2 * m)), meanTokens: Math.round(m * 100) / 100 } : null,
      reasoningTokens: 0,
      earlyStopRate: 0,
      prefixCaching: true,
      ...(opts.kvUnified ? { kvUnified: true } : {}),
      hardware: {
        ...(obs.hardware.gpuName ? { gpuName: obs.hardware.gpuName } : {}),
        ...(obs.hardware.gpuCount ? { gpuCount: obs.hardware.gpuCount } : {}),
        ...(obs.hardware.gpuMemoryGb ? { gpuMemoryGb: obs.hardware.gpuMemoryGb } : {}),
      },
    },
    'fitted by the twin',
  );
  notes.push('max batched tokens per step: not measured by the method; assumed 8192 (vLLM chunked prefill).');
  const pre = prefill.map((p) => p[0]);
  return {
    profile,
    params,
    notes,
    kvCapacity: kv,
    maxNumSeqs: seqs,
    specMeanTokens: m,
    ranges: {
      contexts: [Math.min(...ctxs), Math.max(...ctxs)],
      batch: [decode.curve.batch[0]!, decode.curve.batch[decode.curve.batch.length - 1]!],
      prefill: [Math.min(...pre), Math.max(...pre)],
    },
  };
}

export { stepAt };
