// A failed run is one typed error with a stable code (docs/architecture.md "Conventions"), caught once in cli/main.ts.
export const ERROR_CODES = {
  CONFIG_INVALID: 2,
  USAGE: 2,
  TARGET_UNREACHABLE: 3,
  AUTH_FAILED: 4,
  MODEL_NOT_FOUND: 5,
  CONTEXT_TOO_LONG: 6,
  NOT_OPENAI_COMPATIBLE: 7,
  RESULT_INVALID: 8,
  RESUME_MISMATCH: 9,
  WRITE_FAILED: 10,
  TARGET_ERROR: 11,
  REGRESSION: 12, // compare --fail-on: a significant slowdown past the threshold
  NO_SERVER: 13, // quick: nothing answered on the ports it looked at
  SEVERAL_SERVERS: 14, // quick without a terminal to ask on: several answered, --base-url picks one
  COORDINATOR_UNREACHABLE: 15, // an agent found no coordinator, or was refused by it (docs/distributed.md)
  INTERRUPTED: 130,
  INTERNAL: 1,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

export class BenchError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  constructor(code: ErrorCode, message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BenchError';
    this.code = code;
    this.hint = options?.hint;
  }
  get exitCode(): number {
    return ERROR_CODES[this.code];
  }
}

export function isBenchError(e: unknown): e is BenchError {
  return e instanceof BenchError;
}
