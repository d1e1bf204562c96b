import { BenchError } from '../../errors.js';
import { emptyCell } from '../../results/empty-cell.js';
import type { DecodeCell, PrefillPoint } from '../../results/schema.js';

// The one place a context too long for the server becomes a Failed cell or point. The first refusal is kept for
// the run's error; once the server refused a context the decode cells use, every larger one fails unsent.
export class TooLong {
  first: BenchError | undefined;
  private from = Infinity;

  // planned: what the plan said of the contexts it marked too long (src/plan/plan.ts tooLongNote), the run's error
  // when one of them is the first to fail.
  constructor(private readonly planned?: string) {}

  // The server refused `ctx` (at a prefill of a decode context, a warm-up or a decode request).
  refused(err: BenchError, ctx: number): void {
    this.first ??= err;
    this.from = Math.min(this.from, ctx);
  }

  // The plan (or an earlier refusal) already says this context cannot run.
  blocks(ctx: number, plannedTooLong: boolean): boolean {
    return plannedTooLong || ctx >= this.from;
  }

  // A cell that never ran: the plan's reason, else the refusal that blocked it.
  blockedCell(ctx: number, n: number, planReason: string | undefined, atIso: string): DecodeCell {
    const reason = planReason ?? this.first?.message ?? 'context too long';
    this.first ??= new BenchError('CONTEXT_TOO_LONG', planReason ? (this.planned ?? reason) : reason);
    return this.failedCell(ctx, n, reason, atIso, atIso);
  }

  failedCell(ctx: number, n: number, message: string, startedAt: string, finishedAt: string): DecodeCell {
    return {
      ...emptyCell(ctx, n, 'Failed'),
      error: `CONTEXT_TOO_LONG: ${message}`,
      startedAt,
      finishedAt,
    };
  }

  // A prefill point the plan marked too long: never sent.
  plannedPrefill(ctx: number, decodeContext: boolean, planReason: string | undefined): PrefillPoint {
    this.first ??= new BenchError('CONTEXT_TOO_LONG', this.planned ?? planReason ?? 'context too long');
    return failedPrefill(ctx, decodeContext, `CONTEXT_TOO_LONG: ${planReason ?? ''}`);
  }

  // The server refused a prefill prompt: a decode context stops its cells; the full-window point (256 tokens
  // under the limit, where a prompt a fraction of a percent long can miss) only earns a warning.
  refusedPrefill(ctx: number, decodeContext: boolean, err: BenchError): PrefillPoint {
    if (decodeContext) this.refused(err, ctx);
    return failedPrefill(ctx, decodeContext, `CONTEXT_TOO_LONG: ${err.message}`);
  }
}

function failedPrefill(contextTokens: number, decodeContext: boolean, error: string): PrefillPoint {
  return {
    contextTokens,
    status: 'Failed',
    promptTokens: null,
    ttftMs: null,
    tokensPerS: null,
    completed: 0,
    repeats: [],
    decodeContext,
    error,
  };
}
