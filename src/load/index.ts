// When requests are sent (docs/workloads.md "Load models"): arrival processes, trace schedules and the sessions
// of a load level, as plain data every executor can rebuild from the same spec and seed.
export { arrivalOffsets, arrivalSeed, traceSchedule, ARRIVAL_KINDS, MAX_ARRIVALS } from './arrivals.js';
export type { ArrivalKind, ArrivalProcess } from './arrivals.js';
export { planLevel, sessionsFor } from './sessions.js';
export type { LoadModel, LevelSpec, LevelPlan, RequestPlan } from './sessions.js';
