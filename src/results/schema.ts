import { z } from 'zod';
import { ARRIVAL_KINDS, CELL_STATUSES, LEVEL_STATUSES } from '../cell-rules.js';
import { KV_LAYOUTS } from '../engines/types.js';
import { ERROR_KINDS } from '../failures/kinds.js';

// The result document is the contract between `run` (writer) and every report, compare and import (readers).
// Field names match CLI flags and YAML config keys where they are the same concept (docs/result-schema.md).
export const RESULT_SCHEMA_ID = 'llm-inference-bench/result';
// 2 added load levels (`levels`, `rateSearch`, `config.workload`, `config.load`), all optional: a version 1 document
// is a version 2 document as it stands (src/results/read.ts upgradeResult).
export const RESULT_SCHEMA_VERSION = 2;
export const RESULT_SCHEMA_VERSIONS = [1, 2] as const;

export const CellStatus = z.enum(CELL_STATUSES);
export type CellStatus = z.infer<typeof CellStatus>;
export const LevelStatus = z.enum(LEVEL_STATUSES);
export type LevelStatus = z.infer<typeof LevelStatus>;

// Closed union of request failure kinds (docs/architecture.md "Conventions": a failed request is data), defined in
// src/failures.
export { ERROR_KINDS };
export const ErrorKind = z.enum(ERROR_KINDS);
export type ErrorKind = z.infer<typeof ErrorKind>;

export const ErrorsByKind = z.partialRecord(ErrorKind, z.number().int().nonnegative());
export type ErrorsByKind = z.infer<typeof ErrorsByKind>;

export const Quantiles = z.object({
  p50: z.number().nullable(),
  p90: z.number().nullable(),
  p99: z.number().nullable(),
});
export type Quantiles = z.infer<typeof Quantiles>;

export const Hardware = z.object({
  type: z.string().optional(), // e.g. "Discrete GPU"
  gpuName: z.string().optional(),
  gpuCount: z.number().int().positive().optional(),
  gpuMemoryGb: z.number().positive().optional(), // each
  gpuMemoryGbTotal: z.number().positive().optional(),
  gpuDriver: z.string().optional(),
  os: z.string().optional(),
  cpu: z.string().optional(),
  // A server on this machine with no GPU runs on its CPU (llama.cpp): logical cores and system memory from the OS.
  cpuCores: z.number().int().positive().optional(),
  systemMemoryGb: z.number().positive().optional(),
  source: z.enum(['nvidia-smi', 'rocm-smi', 'os', 'flags', 'imported', 'sim', 'none']).optional(),
});
export type Hardware = z.infer<typeof Hardware>;

export const Engine = z.object({
  name: z.string(), // vllm | sglang | llamacpp | tgi | ollama | trtllm | generic | sim-*
  version: z.string().optional(),
  commit: z.string().optional(),
  build: z.string().optional(),
  quantization: z.string().optional(),
  backend: z.string().optional(),
  repository: z.string().optional(),
  detectedBy: z.string().optional(), // which endpoint or flag told us
});
export type Engine = z.infer<typeof Engine>;

export const Target = z.object({
  baseUrl: z.string(), // never carries credentials (userinfo stripped)
  model: z.string(), // served model name sent in requests
  revision: z.string().optional(),
  api: z.enum(['chat', 'completions']),
  maxModelLen: z.number().int().positive().optional(),
  kvCapacityTokens: z.number().int().positive().optional(),
  kvCapacitySource: z.string().optional(),
  // exact, or a lower bound / an inference from the API (docs/engines.md "KV capacity: where it comes from, and how
  // sure"; src/plan/capacity.ts KvBound)
  kvCapacityBound: z.enum(['exact', 'lower-bound', 'inferred']).optional(),
  // Requests the server runs at once as it states it (llama.cpp /props total_slots, SGLang max_running_requests, or
  // its launch command), and how its KV is laid out where the engine may lay it out more than one way (llama.cpp
  // split or unified: src/engines). Absent where the server does not say.
  seats: z.number().int().positive().optional(),
  seatsSource: z.string().optional(),
  kvLayout: z.enum(KV_LAYOUTS).optional(),
  metricsAvailable: z.boolean(),
  tokenizeAvailable: z.boolean().optional(),
  tokenizeMethod: z.string().optional(), // how prompt lengths were counted (src/target/engines), in words
  reasoningField: z.string().optional(),
});
export type Target = z.infer<typeof Target>;

// A service level (--slo, docs/method.md "Service level"): a request meets it when its first token came within ttftMs
// and its own decode rate was at least tokensPerS (either may be absent); a cell meets it when `share` of its
// requests did. `name` is set for a named level (the default, `chat`).
export const ServiceLevel = z.object({
  name: z.string().optional(),
  ttftMs: z.number().positive().optional(),
  tokensPerS: z.number().positive().optional(),
  share: z.number().positive().max(1),
});
export type ServiceLevel = z.infer<typeof ServiceLevel>;

// The workload (--workload, docs/workloads.md): what each request asks, as parsed, defaults filled in.
// Token counts are tokens (8K stored as 8192), times ms.
export const LengthShape = z.discriminatedUnion('dist', [
  z.strictObject({ dist: z.literal('const'), value: z.number().int().positive() }),
  z.strictObject({
    dist: z.literal('uniform'),
    min: z.number().int().positive(),
    max: z.number().int().positive(),
  }),
  z.strictObject({
    dist: z.literal('normal'),
    mean: z.number().int().positive(),
    sd: z.number().int().positive(),
  }),
  z.strictObject({
    dist: z.literal('lognormal'),
    median: z.number().int().positive(),
    sigma: z.number().positive(),
  }),
]);
export type LengthShape = z.infer<typeof LengthShape>;
export const ThinkTime = z.discriminatedUnion('dist', [
  z.strictObject({ dist: z.literal('const'), ms: z.number().nonnegative() }),
  z.strictObject({ dist: z.literal('exp'), meanMs: z.number().positive() }),
]);
export type ThinkTime = z.infer<typeof ThinkTime>;
const tokens = z.number().int().positive();
export const WorkloadConfig = z.union([
  z.strictObject({ kind: z.literal('fixed') }),
  z.strictObject({ kind: z.literal('lengths'), file: z.string() }),
  z.strictObject({ kind: z.literal('lengths'), in: LengthShape, out: LengthShape.optional() }),
  z.strictObject({ kind: z.literal('shared-prefix'), prefixes: tokens, prefix: tokens, suffix: tokens }),
  z.strictObject({
    kind: z.literal('multi-turn'),
    turns: z.number().int().positive(),
    think: ThinkTime,
    system: z.number().int().nonnegative(),
    message: tokens,
    cap: tokens.optional(),
  }),
  z.strictObject({ kind: z.literal('mooncake'), file: z.string(), block: tokens }),
]);
export type WorkloadConfig = z.infer<typeof WorkloadConfig>;

export const ArrivalKind = z.enum(ARRIVAL_KINDS);
export type ArrivalKind = z.infer<typeof ArrivalKind>;

// When requests were sent (the load model, docs/workloads.md): the closed loop's concurrency list is
// config.concurrency; an open loop's rates and arrivals; a trace's file and time scale. Windows: warm-up and
// drain timeout in seconds, the window itself config.duration.
const levelWindows = {
  warmup: z.number().nonnegative().optional(), // seconds excluded before each level's window; absent: 10
  drainTimeout: z.number().nonnegative().optional(), // seconds the window's requests may run past the close; absent: 60
};
export const LoadConfig = z.discriminatedUnion('model', [
  z.object({ model: z.literal('closed') }),
  z.object({
    model: z.literal('open'),
    rates: z.array(z.number().positive()), // req/s, one level each (empty with findRate alone)
    arrival: ArrivalKind,
    burstiness: z.number().positive().optional(), // gamma's shape: CV 1/sqrt(B)
    maxInFlight: z.number().int().positive().optional(),
    findRate: z.boolean().optional(), // search the highest rate meeting the service level, per row
    searchWindows: z.number().int().positive().optional(), // the search's most levels per row; absent: 8
    ...levelWindows,
  }),
  z.object({
    model: z.literal('trace'),
    trace: z.string(), // the trace file the schedule came from
    timeScale: z.number().positive(), // replayed X times faster
    ...levelWindows,
  }),
]);
export type LoadConfig = z.infer<typeof LoadConfig>;

export const RunConfig = z.object({
  contexts: z.array(z.number().int().positive()),
  prefillContexts: z.array(z.number().int().positive()),
  concurrency: z.array(z.number().int().positive()),
  maxOutput: z.number().int().positive(),
  duration: z.number().positive(), // seconds, the window length asked for
  prefillRepeats: z.number().int().positive(), // what was measured: at least `repeats`
  repeats: z.number().int().positive().optional(), // windows per decode cell (--repeats); absent: 1
  rampTimeout: z.number().positive().optional(), // seconds
  settleTimeout: z.number().nonnegative().optional(), // seconds
  settlePause: z.number().nonnegative().optional(), // seconds
  metricsInterval: z.number().positive().optional(), // seconds
  ignoreEos: z.boolean(),
  sampling: z.record(z.string(), z.unknown()), // exactly the sampling fields that were sent
  seed: z.number().int(),
  workers: z.number().int().positive().optional(),
  agents: z.number().int().positive().optional(), // decode cells spread over K agents (docs/distributed.md)
  httpClient: z.enum(['lean', 'undici']).optional(), // the streaming transport (--http-client); absent: lean
  verifyCapacity: z.boolean().optional(), // measure the first Over capacity cell of each context anyway
  slo: ServiceLevel.optional(), // the service level the reports judge by (--slo); absent: the default
  workload: WorkloadConfig.optional(), // absent: fixed
  load: LoadConfig.optional(), // absent: closed
});
export type RunConfig = z.infer<typeof RunConfig>;

export const PrefillRepeat = z.object({
  promptTokens: z.number().int().nonnegative(), // from server usage when reported
  promptTokensSource: z.enum(['usage', 'tokenize', 'estimate']).optional(),
  ttftMs: z.number().nonnegative(),
  tokensPerS: z.number().nonnegative(), // (promptTokens - cachedTokens) / TTFT: the tokens actually computed
  outlier: z.boolean().optional(), // differs from the median by > 25% (docs/method.md "Prefill")
  cachedTokens: z.number().int().nonnegative().optional(),
});
export type PrefillRepeat = z.infer<typeof PrefillRepeat>;

export const Interval = z.object({ lo: z.number(), hi: z.number() });
export type Interval = z.infer<typeof Interval>;

// What a twin prediction (src/twin/predict.ts) says beyond the figures: where it extrapolates past the measured
// range, and the other status the cell may have when the fitted KV capacity or max sequences leave it open.
export const PredictionNote = z.object({
  extrapolates: z.array(z.string()).optional(),
  otherStatus: CellStatus.optional(),
  tokensPerS: Interval.optional(), // prefill points, which have no intervals field
  ttftMs: Interval.optional(),
  ttftP90Ms: Interval.optional(), // decode cells: the p90 TTFT's interval (intervals.ttftMs is the median's)
});
export type PredictionNote = z.infer<typeof PredictionNote>;

export const PrefillPoint = z.object({
  contextTokens: z.number().int().positive(), // target size
  status: CellStatus,
  promptTokens: z.number().int().nonnegative().nullable(), // median of repeats
  ttftMs: z.number().nonnegative().nullable(), // median of repeats
  tokensPerS: z.number().nonnegative().nullable(), // median of repeats
  cachedTokens: z.number().int().nonnegative().optional(), // median of repeats, where the server reports them
  completed: z.number().int().nonnegative(),
  repeats: z.array(PrefillRepeat),
  decodeContext: z.boolean().optional(), // false for prefill-only points (full window)
  // The full-window prompt was refused as too long and measured again with a shorter one (src/bench/prefill.ts).
  shortened: z
    .object({
      fromTarget: z.number().int().positive(),
      toTarget: z.number().int().positive(),
      rejectedPromptTokens: z.number().int().positive().optional(), // as the refusal said
      reason: z.string(),
    })
    .optional(),
  error: z.string().optional(),
  errors: ErrorsByKind.optional(),
  prediction: PredictionNote.optional(),
});
export type PrefillPoint = z.infer<typeof PrefillPoint>;

export const ServerSample = z.object({
  tMs: z.number(), // since window open
  running: z.number().nullable().optional(),
  waiting: z.number().nullable().optional(),
  kvUsage: z.number().nullable().optional(), // 0..1
  specAcceptedTokens: z.number().nullable().optional(), // counter
  specDraftTokens: z.number().nullable().optional(), // counter
  specDrafts: z.number().nullable().optional(), // counter
  specAcceptLength: z.number().nullable().optional(), // gauge where the engine reports it directly (SGLang)
  prefixCacheHits: z.number().nullable().optional(), // counter (tokens)
  prefixCacheQueries: z.number().nullable().optional(), // counter (tokens)
  powerW: z.number().nullable().optional(),
});
export type ServerSample = z.infer<typeof ServerSample>;

// 95% intervals (docs/method.md "Intervals"): order statistics for medians, batch means for the total rate.
export const CellIntervals = z.object({
  totalTokensPerS: Interval.nullable().optional(),
  perRequestTokensPerS: Interval.nullable().optional(),
  ttftMs: Interval.nullable().optional(),
  tbtMs: Interval.nullable().optional(),
});
export type CellIntervals = z.infer<typeof CellIntervals>;

// One error message the server answered with, and how many of the cell's requests got it.
export const ServerError = z.object({
  message: z.string(),
  count: z.number().int().positive(),
  kind: ErrorKind,
  status: z.number().int().optional(),
});
export type ServerError = z.infer<typeof ServerError>;

// The client-timeline queue evidence of a cell (src/stats/queue.ts), kept whatever the status.
export const ClientQueue = z.object({
  queued: z.boolean(),
  referenceTtftMs: z.number(),
  referenceFrom: z.string(),
  avgPastReference: z.number(),
  avgStreaming: z.number(),
  peakStreaming: z.number().int(),
  nearPeakShare: z.number(),
  maxWaitMs: z.number(),
});
export type ClientQueue = z.infer<typeof ClientQueue>;

// The client checked itself over the window (src/client/self-check.ts): when clientBound, the cell's timings are
// partly our own process's, and every report says so.
export const ClientCheckResult = z.object({
  loopDelayP99Ms: z.number().nonnegative(),
  loopDelayMaxMs: z.number().nonnegative(),
  loopDelayTimeP50Ms: z.number().nonnegative().optional(), // the delay at the median of the window's time
  cpuPctPerThread: z.number().nonnegative(),
  threads: z.number().int().positive(),
  busiestLoopPct: z.number().nonnegative().optional(),
  busiestLoop: z.string().optional(),
  clientBound: z.boolean(),
  reason: z.string().optional(),
});
export type ClientCheckResult = z.infer<typeof ClientCheckResult>;

// How the cell's token events came in (src/stats/batching.ts, docs/method.md "Streams held back"): batched when
// something between client and server held the stream and passed it on in bursts; then TTFT, time between tokens
// and per-request tok/s are the middlebox's timing, not the server's. Kept whatever the verdict.
export const StreamBatchingResult = z.object({
  batched: z.boolean(),
  requests: z.number().int().nonnegative(), // requests judged (at least 4 token events)
  eventsPerRead: z.number().nonnegative(), // token events per read that carried any
  eventsPerStep: z.number().positive(), // events the server writes per step (speculation on per-token events)
  firstHeldShare: z.number().min(0).max(1), // share of requests whose first token came in one read with later ones
  heldMs: z.number().nonnegative().nullable(), // median gap between reads (one-read streams: from the send)
});
export type StreamBatchingResult = z.infer<typeof StreamBatchingResult>;

// One window of a cell measured several times (--repeats); the cell's figures are their means (src/stats/repeats.ts).
export const CellRepeat = z.object({
  status: CellStatus,
  totalTokensPerS: z.number().nullable(),
  perRequestTokensPerS: z.number().nullable(),
  ttftMs: z.number().nullable(),
  tbtMs: z.number().nullable(),
  measuredS: z.number().nullable(),
  error: z.string().optional(),
});
export type CellRepeat = z.infer<typeof CellRepeat>;

// A cell the capacity rule would have skipped, measured because the capacity was only a bound or
// --verify-capacity asked (src/plan/capacity.ts); held: whether the server failed to run all N at once.
export const CapacityCheckResult = z.object({
  needTokens: z.number().int().positive(),
  kvCapacityTokens: z.number().int().positive(),
  bound: z.enum(['exact', 'lower-bound', 'inferred']),
  why: z.enum(['bound', 'verify']),
  held: z.boolean(),
});
export type CapacityCheckResult = z.infer<typeof CapacityCheckResult>;

// What any service level needs of a cell, per request of the window (ramp and window sends, as the TTFT figure):
// each request's TTFT and its own decode rate (null: fewer than two chunks in the window), in the same order; the
// requests still without a first token at the close (how long they had waited) and those that failed
// (src/stats/slo.ts). ttftMs to 0.1 ms, tokensPerS to 0.01.
export const WindowRequests = z
  .object({
    ttftMs: z.array(z.number().nonnegative()),
    tokensPerS: z.array(z.number().nonnegative().nullable()),
    waitedMs: z.array(z.number().nonnegative()).optional(),
    failed: z.number().int().nonnegative().optional(),
  })
  .refine((w) => w.ttftMs.length === w.tokensPerS.length, {
    message: 'ttftMs and tokensPerS must hold one entry per request',
  });
export type WindowRequests = z.infer<typeof WindowRequests>;

// A cell driven by several agent machines (docs/distributed.md): each agent's clock against the coordinator's,
// measured before and after the cell (NTP-style, ± half the best round trip), which every stamp of its requests was
// moved by; the widest uncertainty beside the window bounds, and a flag when it is wide enough to matter.
export const AgentOffset = z.object({ offsetMs: z.number(), uncertaintyMs: z.number().nonnegative() });
export const CellAgents = z.object({
  count: z.number().int().positive(), // agents that drove slots, the coordinator (agent 0) included
  clocks: z.array(
    z.object({
      agent: z.number().int().positive(),
      host: z.string().optional(),
      slots: z.number().int().nonnegative(),
      before: AgentOffset.optional(),
      after: AgentOffset.optional(),
    }),
  ),
  windowUncertaintyMs: z.number().nonnegative(),
  clockFlag: z.string().optional(), // the uncertainty could move the window's token count by more than 0.1%
  lost: z.string().optional(), // the agent that died or fell silent: the cell is Failed
});
export type CellAgents = z.infer<typeof CellAgents>;

export const DecodeCell = z.object({
  contextTokens: z.number().int().positive(),
  concurrency: z.number().int().positive(),
  status: CellStatus,
  // Seed figures (docs/method.md "Figures of a cell"); null when not measured.
  totalTokensPerS: z.number().nullable(),
  perRequestTokensPerS: z.number().nullable(),
  ttftMs: z.number().nullable(),
  tbtMs: z.number().nullable(),
  avgActive: z.number().nullable(),
  completed: z.number().int().nullable(),
  outputTokens: z.number().int().nullable(),
  measuredS: z.number().nullable(),
  // Beyond the seeds.
  ttft: Quantiles.optional(),
  chunkGapMs: Quantiles.optional(),
  perRequestTokensPerSQ: Quantiles.optional(),
  requestsSent: z.number().int().optional(),
  errors: ErrorsByKind.optional(),
  // The server's own words for the requests it failed (its error messages, deduplicated, most frequent first), so the
  // reports show them beside the errors by kind. Absent when the server failed none.
  serverErrors: z.array(ServerError).optional(),
  // Requests sent a second time: their reused connection closed before a byte of answer (the server had
  // given it up; docs/method.md "Connections"). Absent when none.
  staleReconnects: z.number().int().positive().optional(),
  promptTokens: z.number().int().optional(), // median server-reported prompt tokens of the cell's requests
  cacheHitRatio: z.number().min(0).max(1).nullable().optional(),
  specAcceptanceLength: z.number().nullable().optional(), // mean accepted tokens per step (1 + accepted/drafts)
  serverSamples: z.array(ServerSample).optional(),
  queueEvidence: z.string().optional(), // words: why "Requests queued" (or why not)
  maxWaiting: z.number().nullable().optional(),
  maxRunning: z.number().nullable().optional(),
  avgPowerW: z.number().nullable().optional(),
  joulesPerToken: z.number().nullable().optional(),
  tokensPerSPerW: z.number().nullable().optional(),
  error: z.string().optional(), // for Failed
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  // Runner additions: the window on the shared epoch-ms clock (so requests.jsonl recomputes every figure),
  // requests cut at the close, and the client-side queue evidence.
  windowOpenMs: z.number().optional(),
  windowCloseMs: z.number().optional(),
  rampTimedOut: z.boolean().optional(),
  abortedAtClose: z.number().int().nonnegative().optional(),
  avgPending: z.number().nullable().optional(), // time-average of requests waiting for a first token
  maxFirstTokenWaitMs: z.number().nullable().optional(),
  intervals: CellIntervals.optional(),
  clientQueue: ClientQueue.optional(),
  // Pauses in streaming (src/stats/window.ts "stall"): the longest chunk gap, stall count and stalled time.
  maxChunkGapMs: z.number().nullable().optional(),
  stalls: z.number().int().nonnegative().optional(),
  stalledMs: z.number().nonnegative().optional(),
  capacityCheck: CapacityCheckResult.optional(),
  client: ClientCheckResult.optional(),
  streamBatching: StreamBatchingResult.optional(),
  // Which chunk carried which token: exact (continuous usage, one token per chunk, or pinned by the server's
  // tokenizer after the cell) or estimated (split by characters); the window's token count is then off by at
  // most windowTokenErrorBound tokens (src/client/attribution.ts).
  chunkAttribution: z.enum(['exact', 'estimated']).optional(),
  windowTokenErrorBound: z.number().int().nonnegative().optional(),
  repeats: z.array(CellRepeat).optional(),
  windowRequests: WindowRequests.optional(),
  agents: CellAgents.optional(),
  prediction: PredictionNote.optional(),
});
export type DecodeCell = z.infer<typeof DecodeCell>;

// A load level (docs/workloads.md "Figures of a load level"): one row under one load, measured over the window's
// arrivals. Times are ms on the shared epoch-ms clock unless named otherwise.
export const LevelLoad = z.discriminatedUnion('model', [
  z.object({ model: z.literal('closed'), concurrency: z.number().int().positive() }),
  z.object({
    model: z.literal('open'),
    rate: z.number().positive(), // req/s asked for
    arrival: ArrivalKind,
    burstiness: z.number().positive().optional(),
    maxInFlight: z.number().int().positive().optional(),
  }),
  z.object({ model: z.literal('trace'), timeScale: z.number().positive() }),
]);
export type LevelLoad = z.infer<typeof LevelLoad>;

// p50, p90, p99 over the level's requests, each with its distribution-free 95% interval (order statistics, exact
// binomial ranks; null where the requests are too few for one) and the number of requests they are over.
export const LevelQuantiles = z.object({
  n: z.number().int().nonnegative(),
  p50: z.number().nullable(),
  p90: z.number().nullable(),
  p99: z.number().nullable(),
  intervals: z.object({ p50: Interval.nullable(), p90: Interval.nullable(), p99: Interval.nullable() }),
});
export type LevelQuantiles = z.infer<typeof LevelQuantiles>;

export const LevelRequestCounts = z.object({
  arrived: z.number().int().nonnegative(), // scheduled inside the window
  completed: z.number().int().nonnegative(), // of those, ended ok (by the drain's end)
  failed: z.number().int().nonnegative(), // of those, ended with an error (errors)
  unfinished: z.number().int().nonnegative(), // of those, aborted at the drain timeout or never ended
  cutAtClose: z.number().int().nonnegative().optional(), // a closed level's: still running at its close (as a cell's)
});
export type LevelRequestCounts = z.infer<typeof LevelRequestCounts>;

// The client's lag behind the schedule: send - (release from the in-flight cap, else the scheduled time).
export const ClientLag = z.object({
  n: z.number().int().nonnegative(),
  p50Ms: z.number().nullable(),
  p99Ms: z.number().nullable(),
  maxMs: z.number().nullable(),
  limitMs: z.number().positive(), // above it (p99) the level is Client-bound: 10 ms or 10% of the mean gap
});
export type ClientLag = z.infer<typeof ClientLag>;

// --max-in-flight: how long arrivals waited for the cap (release - scheduled), and how many waited on average.
export const InFlightCapWait = z.object({
  waited: z.number().int().nonnegative(), // window arrivals held at the cap at all
  p50Ms: z.number().nullable(),
  p99Ms: z.number().nullable(),
  maxMs: z.number().nullable(),
  avgWaiting: z.number().nonnegative(), // time-average over the window of arrivals held at the cap
});
export type InFlightCapWait = z.infer<typeof InFlightCapWait>;

// Prefix cache over the window's arrivals: the tokens the workload made cacheable (expected hits) beside those the
// server said it served from cache (usage), else its hit counter's rise over the window (metrics), else none.
export const LevelCache = z.object({
  expectedTokens: z.number().int().nonnegative(),
  servedTokens: z.number().nonnegative().nullable(),
  source: z.enum(['usage', 'metrics', 'none']),
  promptTokens: z.number().int().nonnegative().nullable(), // Σ server-reported prompt tokens, where reported
  reported: z.number().int().nonnegative(), // requests whose usage carried cached tokens
});
export type LevelCache = z.infer<typeof LevelCache>;

export const LoadLevel = z.object({
  row: z.string(), // the context for the fixed workload ("8192"), else the workload's label
  key: z.string(), // levelKey(row, load) (src/cell-rules.ts): requests.jsonl's `level`
  load: LevelLoad,
  status: LevelStatus,
  evidence: z.string().optional(), // words: why this status
  error: z.string().optional(), // for Failed
  windowOpenMs: z.number(), // arrivals scheduled in [open, close) are the level's
  windowCloseMs: z.number(),
  drainEndMs: z.number().optional(), // when the window's last request ended or was aborted
  requests: LevelRequestCounts,
  offeredRate: z.number().nonnegative(), // req/s: arrivals / window length
  achievedRate: z.number().nonnegative(), // req/s: requests (any arrival) that ended ok inside the window / length
  // Under the run's service level (config.slo, else the default); any other level is judged from windowRequests.
  goodput: z.number().nonnegative().nullable(), // req/s: window arrivals that met it / window length
  sloShare: z.number().min(0).max(1).nullable(), // met / judged
  sloShareInterval: Interval.nullable().optional(), // 95% Wilson
  ttftMs: LevelQuantiles, // from the scheduled time: the user's wait, in-flight cap and client lag included
  ttftFromSendMs: LevelQuantiles, // from the send: the server's part
  itlMs: LevelQuantiles, // per request: its stream's span / tokens after the first chunk
  e2eMs: LevelQuantiles, // end - scheduled, requests that ended ok
  outputTokens: z.number().int().nonnegative(), // arriving inside the window, any request
  totalTokensPerS: z.number().nullable(),
  totalTokensPerSInterval: Interval.nullable().optional(),
  perRequestTokensPerS: LevelQuantiles, // each request's decode rate over its whole stream
  queue: z
    .object({
      clientQueue: ClientQueue.optional(), // the client timeline (docs/method.md "Queueing in an open loop")
      waitingGauge: z.string().optional(), // the server's waiting gauge, in words, where it read a queue
      maxWaiting: z.number().nullable().optional(),
      inFlightCap: InFlightCapWait.optional(),
    })
    .optional(),
  cache: LevelCache.optional(),
  lag: ClientLag,
  serverSamples: z.array(ServerSample).optional(),
  errors: ErrorsByKind.optional(),
  // Per window arrival, for any service level later (src/answer/levels.ts judgeLevel): TTFT from the scheduled
  // time and the decode rate over the whole stream of those that ended ok; `failed` counts the failed and the
  // unfinished (neither meets any level).
  windowRequests: WindowRequests.optional(),
  client: ClientCheckResult.optional(),
  agents: CellAgents.optional(),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
});
export type LoadLevel = z.infer<typeof LoadLevel>;

// The search for the highest rate meeting the service level (--find-rate, src/answer/rate-search.ts), per row:
// kept so a resumed run continues it.
export const RateVerdict = z.enum(['meets', 'fails', 'too close to call', 'client-bound']);
export type RateVerdict = z.infer<typeof RateVerdict>;
export const RateSearch = z.object({
  row: z.string(),
  slo: ServiceLevel, // the level the verdicts are under
  start: z.number().positive(),
  startFrom: z.enum(['given', 'closed loop', 'default']),
  steps: z.array(
    z.object({ rate: z.number().positive(), verdict: RateVerdict, level: z.string().optional() }),
  ),
  highestMeeting: z.number().positive().nullable(),
  lowestFailing: z.number().positive().nullable(), // the lowest rate not meeting it (fails or too close to call)
  done: z.boolean(),
  reason: z.string().optional(), // why it stopped, in words
});
export type RateSearch = z.infer<typeof RateSearch>;

export const RunResult = z.object({
  schema: z.literal(RESULT_SCHEMA_ID),
  version: z.literal(RESULT_SCHEMA_VERSIONS),
  runId: z.string(),
  title: z.string().optional(),
  tool: z.object({ name: z.string(), version: z.string() }),
  status: z.enum(['running', 'complete', 'interrupted', 'failed', 'imported']),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  decodeTest: z.string(), // "Fixed duration"
  prefillMode: z.string(), // "Measured during decode warm-up"
  target: Target,
  engine: Engine,
  hardware: Hardware,
  launchCommand: z.string().optional(), // always redacted
  config: RunConfig,
  prefill: z.array(PrefillPoint),
  decode: z.array(DecodeCell),
  levels: z.array(LoadLevel).optional(), // load levels other than the fixed workload's closed loop (version 2)
  rateSearch: z.array(RateSearch).optional(),
  warnings: z.array(z.string()),
  requestLog: z.string().optional(), // file name of the per-request JSON lines, relative to the result
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  // Present only on a prediction (`predict --twin`): nothing in it was measured.
  predicted: z
    .object({
      twin: z.string(), // the twin profile's name
      fittedFrom: z.array(z.string()), // the results the twin was fitted on
      whatIf: z.record(z.string(), z.unknown()).optional(), // settings changed from the fit
      note: z.string().optional(),
      // Share of the predicted Valid cells each figure is expected within tolerance of a measurement (10% for
      // tok/s, 25% for TTFT), from the fit's own misses (src/twin/predict.ts).
      expectedWithin: z
        .object({ totalTokensPerS: z.number(), perRequestTokensPerS: z.number(), ttftMs: z.number() })
        .optional(),
    })
    .optional(),
});
export type RunResult = z.infer<typeof RunResult>;

export function parseResult(data: unknown): RunResult {
  return RunResult.parse(data);
}
