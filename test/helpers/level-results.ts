import { levelKey } from '../../src/cell-rules.js';
import {
  parseResult,
  type DecodeCell,
  type Interval,
  type LevelLoad,
  type LevelQuantiles,
  type LevelStatus,
  type LoadLevel,
  type RunResult,
} from '../../src/results/schema.js';

// Results with load levels (docs/workloads.md "Figures of a load level"), built from the schema with every figure
// written out, for the report, compare, serve and share tests. One result holds two rows so that one report shows
// both kinds: the fixed workload at 8K (open-loop rates beside its closed-loop decode cells) and a shared-prefix
// workload (rates from a --find-rate search beside its closed levels). The run's service level is the default chat
// (first token within 2 s, at least 20 tok/s each, 90% of requests), the window 60 s a level.
//
// Each level stores one entry per window arrival (windowRequests), so any service level can judge it again:
// `met` requests with a first token after `fastMs` decoding at 40 tok/s, `late` ones after 3 s at 40 tok/s, `slow`
// ones after `fastMs` at 15 tok/s, and the failed and unfinished counted as `failed`. Under the default level the
// met ones meet it and the others do not; under ttft=500ms only levels whose fastMs is within 500 ms do.

export const FIXED_ROW = '8192';
export const PREFIX_ROW = 'shared-prefix:prefixes=4,prefix=2K,suffix=256';
export const WINDOW_S = 60;
const START = Date.parse('2026-12-10T09:00:00.000Z');

export interface LevelSpec {
  row: string;
  load: LevelLoad;
  status: LevelStatus;
  evidence: string;
  error?: string;
  arrived: number;
  unfinished?: number;
  failed?: number;
  achieved: number; // requests that ended ok inside the window
  met: number;
  late?: number;
  slow?: number;
  fastMs: number;
  ttft: [number, number, number]; // p50, p90, p99 ms from the scheduled time
  itl: [number, number, number];
  e2e: [number, number, number];
  tokS: number; // output tok/s over the window
  lagP99: number;
  cache?: { expected: number; served: number | null; source?: 'usage' | 'metrics' | 'none' };
  maxWaiting?: number;
}

// Exact-rank intervals: none where the requests are too few (a median needs 6, a p90 36, a p99 368).
function quantiles(n: number, [p50, p90, p99]: [number, number, number]): LevelQuantiles {
  const around = (v: number, f: number): Interval => ({ lo: v * (1 - f), hi: v * (1 + f) });
  return {
    n,
    p50,
    p90,
    p99,
    intervals: {
      p50: n >= 6 ? around(p50, 0.04) : null,
      p90: n >= 36 ? around(p90, 0.08) : null,
      p99: n >= 368 ? around(p99, 0.15) : null,
    },
  };
}

let order = 0;

export function level(s: LevelSpec): LoadLevel {
  const late = s.late ?? 0;
  const slow = s.slow ?? 0;
  const failed = s.failed ?? 0;
  const unfinished = s.unfinished ?? 0;
  const completed = s.met + late + slow;
  if (completed + failed + unfinished !== s.arrived) throw new Error(`${s.row}: counts do not add up`);
  const open = START + order++ * 120_000;
  const gapMs = (WINDOW_S * 1000) / s.arrived;
  const withToken = s.arrived - failed - unfinished;
  const judged = s.arrived;
  const z2 = 1.959963984540054 ** 2;
  const p = s.met / judged;
  const centre = (p + z2 / (2 * judged)) / (1 + z2 / judged);
  const half =
    (Math.sqrt(z2) * Math.sqrt((p * (1 - p)) / judged + z2 / (4 * judged * judged))) / (1 + z2 / judged);
  return {
    row: s.row,
    key: levelKey(s.row, s.load),
    load: s.load,
    status: s.status,
    evidence: s.evidence,
    ...(s.error ? { error: s.error } : {}),
    windowOpenMs: open,
    windowCloseMs: open + WINDOW_S * 1000,
    drainEndMs: open + WINDOW_S * 1000 + (unfinished ? 60_000 : 9_000),
    requests: { arrived: s.arrived, completed, failed, unfinished },
    offeredRate: s.arrived / WINDOW_S,
    achievedRate: s.achieved / WINDOW_S,
    goodput: s.met / WINDOW_S,
    sloShare: p,
    sloShareInterval: { lo: Math.max(0, centre - half), hi: Math.min(1, centre + half) },
    ttftMs: quantiles(withToken, s.ttft),
    ttftFromSendMs: quantiles(withToken, [s.ttft[0] - 1, s.ttft[1] - 1, s.ttft[2] - 1]),
    itlMs: quantiles(completed, s.itl),
    e2eMs: quantiles(completed, s.e2e),
    outputTokens: Math.round(s.tokS * WINDOW_S),
    totalTokensPerS: s.tokS,
    totalTokensPerSInterval: { lo: s.tokS * 0.97, hi: s.tokS * 1.03 },
    perRequestTokensPerS: quantiles(completed, [1000 / s.itl[0], 1000 / s.itl[1], 1000 / s.itl[2]]),
    ...(s.maxWaiting !== undefined
      ? {
          queue: {
            waitingGauge: `server metrics showed waiting requests in 54 of 60 samples (max ${s.maxWaiting})`,
            maxWaiting: s.maxWaiting,
          },
        }
      : {}),
    cache: {
      expectedTokens: s.cache?.expected ?? 0,
      servedTokens: s.cache ? s.cache.served : 0,
      source: s.cache?.source ?? 'usage',
      promptTokens: s.arrived * (s.row === FIXED_ROW ? 8192 : 2304),
      reported: s.cache?.source === 'none' || s.cache?.source === 'metrics' ? 0 : withToken,
    },
    lag: {
      n: s.arrived,
      p50Ms: Math.min(0.4, s.lagP99),
      p99Ms: s.lagP99,
      maxMs: s.lagP99 * 1.25,
      limitMs: Math.max(10, gapMs / 10),
    },
    ...(failed ? { errors: { http_status: failed } } : {}),
    windowRequests: {
      ttftMs: [
        ...Array<number>(s.met).fill(s.fastMs),
        ...Array<number>(late).fill(3000),
        ...Array<number>(slow).fill(s.fastMs),
      ],
      tokensPerS: [...Array<number>(s.met + late).fill(40), ...Array<number>(slow).fill(15)],
      ...(failed + unfinished ? { failed: failed + unfinished } : {}),
    },
    startedAt: new Date(open - 10_000).toISOString(),
    finishedAt: new Date(open + WINDOW_S * 1000 + 9_000).toISOString(),
  };
}

const open = (rate: number): LevelLoad => ({ model: 'open', rate, arrival: 'poisson' });
const queued = (max: number) => `server metrics showed waiting requests in 54 of 60 samples (max ${max})`;

/** The fixed workload at 8K under rates: 1 and 2 meet, 3 too close to call, 4 queued and fails, 8 Failed. */
export function fixedRowLevels(): LoadLevel[] {
  return [
    level({
      row: FIXED_ROW,
      load: open(1),
      status: 'Valid',
      evidence: 'no queue seen',
      arrived: 60,
      achieved: 60,
      met: 60,
      fastMs: 320,
      ttft: [320, 410, 560],
      itl: [21.5, 23.1, 24],
      e2e: [11_300, 11_800, 12_100],
      tokS: 511.2,
      lagP99: 1.2,
    }),
    level({
      row: FIXED_ROW,
      load: open(2),
      status: 'Valid',
      evidence: 'no queue seen',
      arrived: 120,
      achieved: 119,
      met: 118,
      late: 2,
      fastMs: 450,
      ttft: [450, 900, 2300],
      itl: [23, 25.8, 27.5],
      e2e: [12_200, 13_900, 14_900],
      tokS: 1020.4,
      lagP99: 1.4,
    }),
    level({
      row: FIXED_ROW,
      load: open(3),
      status: 'Valid',
      evidence: 'no queue seen',
      arrived: 180,
      achieved: 179,
      met: 164,
      late: 16,
      fastMs: 700,
      ttft: [700, 1950, 3400],
      itl: [26, 29.4, 31],
      e2e: [14_100, 16_600, 17_800],
      tokS: 1523.9,
      lagP99: 1.9,
    }),
    level({
      row: FIXED_ROW,
      load: open(4),
      status: 'Requests queued',
      evidence: queued(37),
      maxWaiting: 37,
      arrived: 240,
      achieved: 192,
      met: 150,
      late: 86,
      unfinished: 4,
      fastMs: 900,
      ttft: [1400, 6800, 9900],
      itl: [30.5, 37.2, 41],
      e2e: [22_500, 33_000, 38_000],
      tokS: 1640.2,
      lagP99: 2.1,
    }),
    level({
      row: FIXED_ROW,
      load: open(8),
      status: 'Failed',
      evidence: '468 of 480 requests failed (468 http_status)',
      error: 'too many failed requests: 468 http_status',
      arrived: 480,
      achieved: 12,
      met: 12,
      failed: 468,
      fastMs: 800,
      ttft: [800, 1100, 1300],
      itl: [24, 26, 27],
      e2e: [13_000, 14_000, 14_500],
      tokS: 102.4,
      lagP99: 2.5,
    }),
  ];
}

const prefixCache = (arrived: number, served: number) => ({ expected: 2048 * (arrived - 4), served });
const PREFIX_DEFAULTS = {
  row: PREFIX_ROW,
  status: 'Valid',
  evidence: 'no queue seen',
  itl: [22, 25, 27],
  lagP99: 1.1,
} as const satisfies Partial<LevelSpec>;

/** The shared-prefix workload: closed levels x1, x4, x8; the search's rates 1, 2, 4, 2.83, 3.36, 3.08; 8 Client-bound. */
export function prefixRowLevels(): LoadLevel[] {
  const closed = (n: number, met: number, late: number, status: LevelStatus, fastMs: number) =>
    level({
      row: PREFIX_ROW,
      load: { model: 'closed', concurrency: n },
      status,
      evidence: status === 'Valid' ? 'no queue seen' : queued(5),
      arrived: met + late,
      achieved: met + late,
      met,
      late,
      fastMs,
      ttft: [fastMs, fastMs * 2, fastMs * 3],
      itl: [20, 22, 24],
      e2e: [10_500, 11_000, 12_000],
      tokS: 50 * n,
      lagP99: 0.5,
      cache: prefixCache(met + late, 2048 * (met + late - 4)),
    });
  const rate = (
    r: number,
    o: Partial<LevelSpec> & Pick<LevelSpec, 'arrived' | 'met' | 'fastMs' | 'ttft' | 'e2e' | 'tokS'>,
  ) =>
    level({
      row: PREFIX_ROW,
      load: open(r),
      status: 'Valid',
      evidence: 'no queue seen',
      achieved: o.arrived - (o.unfinished ?? 0),
      itl: [22, 25, 27],
      lagP99: 1.1,
      cache: prefixCache(o.arrived, 2048 * (o.arrived - 4)),
      ...o,
    });
  return [
    closed(1, 40, 0, 'Valid', 150),
    closed(4, 150, 0, 'Valid', 240),
    closed(8, 200, 80, 'Requests queued', 600),
    rate(1, {
      arrived: 60,
      met: 60,
      fastMs: 210,
      ttft: [210, 260, 330],
      e2e: [11_400, 11_900, 12_300],
      tokS: 509.6,
    }),
    rate(2, {
      arrived: 120,
      met: 120,
      fastMs: 260,
      ttft: [260, 380, 520],
      e2e: [11_900, 12_600, 13_200],
      tokS: 1019.1,
    }),
    rate(4, {
      arrived: 240,
      met: 90,
      late: 144,
      unfinished: 6,
      achieved: 204,
      status: 'Requests queued',
      evidence: queued(41),
      maxWaiting: 41,
      fastMs: 1200,
      ttft: [4100, 8800, 11_200],
      itl: [34, 41, 45],
      e2e: [24_000, 36_500, 41_000],
      tokS: 1742.5,
      cache: prefixCache(240, 98_304),
    }),
    rate(2.83, {
      arrived: 170,
      met: 166,
      late: 4,
      fastMs: 380,
      ttft: [380, 820, 2100],
      e2e: [12_600, 14_100, 15_800],
      tokS: 1447.3,
    }),
    rate(3.36, {
      arrived: 202,
      met: 150,
      late: 52,
      achieved: 196,
      status: 'Requests queued',
      evidence: queued(19),
      maxWaiting: 19,
      fastMs: 640,
      ttft: [1100, 3900, 6100],
      itl: [29, 34, 38],
      e2e: [17_800, 25_400, 29_900],
      tokS: 1666.8,
      cache: prefixCache(202, 151_552),
    }),
    rate(3.08, {
      arrived: 185,
      met: 180,
      late: 5,
      fastMs: 520,
      ttft: [520, 1000, 2200],
      e2e: [13_300, 15_200, 16_900],
      tokS: 1570.4,
    }),
    rate(8, {
      arrived: 480,
      met: 470,
      late: 10,
      status: 'Client-bound',
      evidence:
        "the client sent its requests up to 60.6 ms behind their schedule (p99 48.5 ms, past 12.5 ms): the timings are partly the client's own, so the level is not judged",
      fastMs: 300,
      ttft: [300, 700, 1900],
      e2e: [12_000, 13_000, 14_000],
      tokS: 3900.2,
      lagP99: 48.5,
    }),
  ];
}

// A closed-loop decode cell of the fixed workload at 8K: `met` of `met + late` requests met the default level.
function cell(n: number, met: number, late: number, status: DecodeCell['status'] = 'Valid'): DecodeCell {
  const total = [0, 45.2, 88.1, 0, 170.4, 0, 0, 0, 301.7][n]!;
  return {
    contextTokens: 8192,
    concurrency: n,
    status,
    totalTokensPerS: total,
    perRequestTokensPerS: total / n,
    ttftMs: 300 + n * 40,
    tbtMs: 1000 / (total / n),
    avgActive: n,
    completed: met + late,
    outputTokens: Math.round(total * 60),
    measuredS: 60,
    intervals: { totalTokensPerS: { lo: total * 0.98, hi: total * 1.02 } },
    windowRequests: {
      ttftMs: [...Array<number>(met).fill(300), ...Array<number>(late).fill(3000)],
      tokensPerS: Array<number>(met + late).fill(n === 8 ? 37 : 44),
    },
  };
}

/** The result with both rows, its rate search, version 2. */
export function levelsResult(): RunResult {
  return parseResult({
    schema: 'llm-inference-bench/result',
    version: 2,
    runId: '2026-12-10_0900_levels',
    title: 'Llama-3.1-8B on H100 · rates',
    tool: { name: 'llm-inference-bench', version: '0.7.0' },
    status: 'complete',
    startedAt: '2026-12-10T08:58:00.000Z',
    finishedAt: '2026-12-10T09:40:00.000Z',
    decodeTest: 'Fixed duration',
    prefillMode: 'Measured during decode warm-up',
    target: {
      baseUrl: 'http://127.0.0.1:8000/v1',
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      api: 'chat',
      maxModelLen: 32768,
      kvCapacityTokens: 400_000,
      kvCapacitySource: 'vllm:cache_config_info',
      metricsAvailable: true,
    },
    engine: { name: 'vllm', version: '0.11.0' },
    hardware: { gpuName: 'NVIDIA H100 80GB HBM3', gpuCount: 1, gpuMemoryGb: 80, source: 'nvidia-smi' },
    launchCommand: 'vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 64',
    config: {
      contexts: [8192],
      prefillContexts: [],
      concurrency: [1, 2, 4, 8],
      maxOutput: 512,
      duration: WINDOW_S,
      prefillRepeats: 3,
      ignoreEos: true,
      sampling: { temperature: 0 },
      seed: 7,
      workload: { kind: 'shared-prefix', prefixes: 4, prefix: 2048, suffix: 256 },
      load: { model: 'open', rates: [1, 2, 3, 4, 8], arrival: 'poisson', findRate: true },
    },
    prefill: [],
    decode: [cell(1, 60, 0), cell(2, 120, 0), cell(4, 240, 0), cell(8, 300, 180, 'Requests queued')],
    levels: [...fixedRowLevels(), ...prefixRowLevels()],
    rateSearch: [
      {
        row: PREFIX_ROW,
        slo: { name: 'chat', ttftMs: 2000, tokensPerS: 20, share: 0.9 },
        start: 1,
        startFrom: 'given',
        steps: [
          { rate: 1, verdict: 'meets', level: `${PREFIX_ROW}@1/s` },
          { rate: 2, verdict: 'meets', level: `${PREFIX_ROW}@2/s` },
          { rate: 4, verdict: 'fails', level: `${PREFIX_ROW}@4/s` },
          { rate: 2.83, verdict: 'meets', level: `${PREFIX_ROW}@2.83/s` },
          { rate: 3.36, verdict: 'fails', level: `${PREFIX_ROW}@3.36/s` },
          { rate: 3.08, verdict: 'meets', level: `${PREFIX_ROW}@3.08/s` },
        ],
        highestMeeting: 3.08,
        lowestFailing: 3.36,
        done: true,
        reason: '3.08 req/s and 3.36 req/s are within 10%',
      },
    ],
    warnings: [],
  });
}

/**
 * A second run of the same server, for compare: at 8K 2 req/s its first tokens came later (p50 585 ms against 450,
 * p90 1,400 against 900) and 100 of 120 met the level (A: 118); on the shared prefix 3.08 req/s came sooner (p50
 * 470 against 520); at 8 req/s its client kept up (A's fell behind) and its first tokens came later (p50 390 against
 * 300). Everything else as A.
 */
export function levelsResultB(): RunResult {
  const r = levelsResult();
  const fixed = fixedRowLevels();
  const prefix = prefixRowLevels();
  const b = (list: LoadLevel[], key: string, l: LoadLevel) => list.map((x) => (x.key === key ? l : x));
  const levels = [
    ...b(
      fixed,
      `${FIXED_ROW}@2/s`,
      level({
        row: FIXED_ROW,
        load: open(2),
        status: 'Valid',
        evidence: 'no queue seen',
        arrived: 120,
        achieved: 119,
        met: 100,
        late: 20,
        fastMs: 585,
        ttft: [585, 1400, 2900],
        itl: [23, 25.8, 27.5],
        e2e: [12_200, 13_900, 14_900],
        tokS: 1020.4,
        lagP99: 1.4,
      }),
    ),
    ...b(
      b(
        prefix,
        `${PREFIX_ROW}@3.08/s`,
        level({
          ...PREFIX_DEFAULTS,
          load: open(3.08),
          arrived: 185,
          achieved: 185,
          met: 180,
          late: 5,
          fastMs: 470,
          ttft: [470, 1000, 2200],
          e2e: [13_300, 15_200, 16_900],
          tokS: 1570.4,
          cache: prefixCache(185, 2048 * 181),
        }),
      ),
      `${PREFIX_ROW}@8/s`,
      level({
        ...PREFIX_DEFAULTS,
        load: open(8),
        arrived: 480,
        achieved: 480,
        met: 470,
        late: 10,
        fastMs: 390,
        ttft: [390, 700, 1900],
        e2e: [12_000, 13_000, 14_000],
        tokS: 3900.2,
        cache: prefixCache(480, 2048 * 476),
      }),
    ),
  ];
  return parseResult({
    ...r,
    runId: '2026-12-11_0900_levels',
    startedAt: '2026-12-11T08:58:00.000Z',
    levels,
  });
}

/** The same run before load levels: version 1, the closed loop alone (a report of it is the report of any v1 file). */
export function closedOnlyResult(): RunResult {
  const r = levelsResult();
  const { workload: _w, load: _l, ...config } = r.config;
  const { levels: _v, rateSearch: _s, ...rest } = r;
  return parseResult({ ...rest, version: 1, config });
}
