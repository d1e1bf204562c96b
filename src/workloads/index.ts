// What each request asks (docs/workloads.md). The file reads are read.ts (not exported here: this folder's
// index stays pure, so the load models and agents import it without I/O).
export {
  readWorkload,
  parseWorkload,
  workloadLabel,
  WORKLOAD_KINDS,
  WORKLOAD_SYNTAX,
  DEFAULT_BLOCK_TOKENS,
} from './spec.js';
export type { WorkloadSpec, WorkloadKind, Think } from './spec.js';
export { parseShape, shapeText, drawShape, tokensText, SHAPE_SYNTAX } from './shapes.js';
export type { Shape } from './shapes.js';
export { parseTraceText, parseScheduleText } from './trace-lines.js';
export type { TraceLine, TraceNeeds } from './trace-lines.js';
export { workloadRequests, mooncakeCacheable } from './requests.js';
export type { LoadedWorkload, WorkloadRequest, WorkloadRequests, RequestContext } from './requests.js';
