// Programmatic API. Each module adds its public pieces here as it lands.
export * from './results/schema.js';
export type { RequestRecord, RequestError } from './client/types.js';
export { BenchError, ERROR_CODES } from './errors.js';
export type { ErrorCode } from './errors.js';
export { TOOL_NAME, TOOL_VERSION } from './version.js';
