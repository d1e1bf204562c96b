// Public surface of the target module (what a server is, its metrics, request bodies, metadata).
export { probeTarget, serverRoot, detectEngine, createProbeContext } from './probe.js';
export type { ProbeOptions } from './probe.js';
export type { TargetInfo, Extensions, MetricNames, EngineName, EngineAdapter, Discovery } from './types.js';
export { ENGINE_NAMES } from './types.js';
export { ADAPTERS, adapterByName } from './engines/index.js';
export { createMetricsSampler } from './metrics-sampler.js';
export type { MetricsSampler, MetricsSamplerOptions } from './metrics-sampler.js';
export {
  summarizeSamples,
  specAcceptanceLength,
  prefixCacheHitRatio,
  averagePowerW,
} from './sample-stats.js';
export type { SampleSummary } from './sample-stats.js';
export { windowEnergy, joulesPerToken, tokensPerSPerW } from './energy.js';
export type { WindowEnergy } from './energy.js';
export { buildRequestBody } from './request-body.js';
export type { RequestBodyOptions } from './request-body.js';
export { redactCommandLine } from './redact.js';
export { findLaunchCommand } from './launch-command.js';
export { detectHardware, parseNvidiaSmi, parseRocmSmi, applyHardwareOverrides } from './hardware.js';
export type { HardwareOverrides } from './hardware.js';
export type { EngineFlags } from './metadata.js';
export { parseErrorBody, errorCodeFor } from '../failures/index.js';
export type { ErrorBody } from '../failures/index.js';
export { parsePrometheus } from './prometheus.js';
export { serverCellFigures } from './cell-figures.js';
export type { ServerCellFigures } from './cell-figures.js';
