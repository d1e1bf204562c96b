import { BenchError, type ErrorCode } from '../errors.js';
import type { RunOutcome } from './run.js';

// A run that measured what it could and still ends with an error (contexts the server cannot take): its result is
// complete and its reports written, so the CLI prints the answer and the paths before the error line. A module of
// its own: the CLI tells it apart without loading the runner.
export class RunEndedWithError extends BenchError {
  constructor(
    readonly outcome: RunOutcome,
    code: ErrorCode,
    message: string,
    options?: { hint?: string },
  ) {
    super(code, message, options);
  }
}
