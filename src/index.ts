// Programmatic API. Each module adds its public pieces here as it lands.
export * from './results/schema.js';
export type { RequestRecord, RequestError } from './client/types.js';
export { BenchError, ERROR_CODES } from './errors.js';
export type { ErrorCode } from './errors.js';
export { TOOL_NAME, TOOL_VERSION } from './version.js';
// Client: stream one request and get its timed record (docs/performance.md).
export { nowMs } from './clock.js';
export { streamRequest, firstTokenTimeoutMs, HTTP_CLIENTS } from './client/stream.js';
export type { StreamRequestOptions, HttpClient } from './client/stream.js';
export { defaultDispatcher } from './client/transport/undici-request.js';
export { StreamSession } from './client/decode/stream-session.js';
export type { SessionOptions } from './client/decode/stream-session.js';
export { getJson, getText, postJson, joinUrl } from './client/http.js';
export type { HttpResult, HttpOk, HttpFailure, HttpOptions } from './client/http.js';
export * from './target/index.js';
// What the tool knows of each engine: names, flags, serving limits, error texts (docs/architecture.md "Engine facts").
export { ENGINES, engineOf, engineNamed, limitsFromLaunch, llamacppSlots } from './engines/index.js';
export type { EngineFacts, LaunchLimits, ServingLimits, KvLayout } from './engines/index.js';
export { buildPromptText, createPromptFactory } from './prompts/index.js';
export type { PromptSpec, PromptFactory, PromptFactoryOptions } from './prompts/index.js';
// Reports: pure renderers over a result file, compare, and the v0.6.2 importer (docs/report.md).
export { renderReport, renderCompare, REPORT_FORMATS, COMPARE_FORMATS } from './report/index.js';
export type { ReportFormat, ReportOptions, CompareFormat } from './report/index.js';
// The answer with its what-ifs, once per result and service level, for renderReport's `analysis` (docs/api.md).
export { analysisOf } from './answer/analysis.js';
export type { Analysis } from './answer/analysis.js';
export { findAnomalies } from './report/anomalies.js';
export type { Anomaly, AnomalyKind } from './report/anomalies.js';
export { loadResult } from './results/read.js';
export { importV062Text } from './results/import-v062.js';
export { contextLabel } from './format/labels.js';
// Runner: plan, window statistics, the run object, result files (docs/method.md, docs/result-schema.md).
export {
  buildPlan,
  decodeContexts,
  prefillContexts,
  isOverCapacity,
  estimateDuration,
} from './plan/index.js';
export type { Plan, PlanInput, PlannedCell, PlannedPrefill, Estimate } from './plan/index.js';
export { sortSamples, quantile, quantiles, median, windowFigures } from './stats/index.js';
export type { SortedSamples, TimedRequest, MeasureWindow, WindowFigures } from './stats/index.js';
export { BenchRun } from './bench/run.js';
export { RunEndedWithError } from './bench/ended-with-error.js';
export type { BenchRunDeps, RunOutcome } from './bench/run.js';
export { writeReportsBeside } from './cli/write-reports.js';
export type { RunSettings } from './bench/settings.js';
export { writeResult, readRequestLines, RESULT_FILE, REQUEST_LOG_FILE } from './results/io.js';
export { readResult } from './results/read.js';
export type { RequestLine } from './results/io.js';
// Simulated engine: an OpenAI-compatible server with ground truth, for tests and demos (docs/sim.md, docs/api.md).
export { startSim, listProfiles, loadProfile } from './sim/index.js';
export type { SimOptions, SimHandle, TruthRecord, Profile, Flavor } from './sim/index.js';
