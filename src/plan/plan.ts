import { BenchError } from '../errors.js';
import { fitsModelLen, isOverCapacity } from './capacity.js';
import { DEFAULT_CONCURRENCY, decodeContexts, prefillContexts } from './contexts.js';

export interface PlanInput {
  maxModelLen?: number;
  kvCapacityTokens?: number;
  maxOutput: number;
  contexts?: number[]; // decode contexts; default from maxModelLen
  prefillContexts?: number[]; // default: decode contexts + full window
  concurrency?: number[];
}

// 'run' is measured; the other statuses are decided before anything is sent.
export type PlannedStatus = 'run' | 'Over capacity' | 'Too long';

export interface PlannedCell {
  contextTokens: number;
  concurrency: number;
  status: PlannedStatus;
  reason?: string;
}

export interface PlannedPrefill {
  contextTokens: number;
  decodeContext: boolean; // false for prefill-only points (the full window)
  status: 'run' | 'Too long';
  reason?: string;
}

export interface Plan {
  maxModelLen?: number;
  kvCapacityTokens?: number;
  maxOutput: number;
  contexts: number[];
  prefillContexts: number[];
  concurrency: number[];
  prefill: PlannedPrefill[];
  cells: PlannedCell[]; // order of execution: contexts ascending, concurrency ascending
}

const sortedUnique = (xs: readonly number[]): number[] => [...new Set(xs)].sort((a, b) => a - b);

export function buildPlan(input: PlanInput): Plan {
  const { maxModelLen, kvCapacityTokens, maxOutput } = input;
  let contexts: number[];
  if (input.contexts && input.contexts.length > 0) contexts = sortedUnique(input.contexts);
  else if (maxModelLen !== undefined) contexts = decodeContexts(maxModelLen, maxOutput);
  else
    throw new BenchError('USAGE', 'cannot choose contexts: the max model length is unknown.', {
      hint: 'Give --max-model-len N or --contexts 8K,16K,... (or --base-url to probe the server).',
    });
  const prefillList =
    input.prefillContexts && input.prefillContexts.length > 0
      ? sortedUnique(input.prefillContexts)
      : prefillContexts(maxModelLen, contexts);
  const concurrency = sortedUnique(input.concurrency?.length ? input.concurrency : DEFAULT_CONCURRENCY);
  const tooLong = (c: number, out: number) =>
    fitsModelLen(c, out, maxModelLen)
      ? undefined
      : `context ${c} + ${out} output tokens exceeds the server's max model length ${maxModelLen}`;

  const decodeSet = new Set(contexts);
  const prefill: PlannedPrefill[] = prefillList.map((c) => {
    const reason = tooLong(c, 1);
    return reason
      ? { contextTokens: c, decodeContext: decodeSet.has(c), status: 'Too long', reason }
      : { contextTokens: c, decodeContext: decodeSet.has(c), status: 'run' };
  });
  const cells: PlannedCell[] = [];
  for (const c of contexts) {
    for (const n of concurrency) {
      const long = tooLong(c, maxOutput);
      if (long) cells.push({ contextTokens: c, concurrency: n, status: 'Too long', reason: long });
      else if (isOverCapacity(c, n, maxOutput, kvCapacityTokens))
        cells.push({
          contextTokens: c,
          concurrency: n,
          status: 'Over capacity',
          reason: `${n} × (${c} + ${maxOutput}) = ${n * (c + maxOutput)} > KV capacity ${kvCapacityTokens}`,
        });
      else cells.push({ contextTokens: c, concurrency: n, status: 'run' });
    }
  }
  return {
    ...(maxModelLen !== undefined ? { maxModelLen } : {}),
    ...(kvCapacityTokens !== undefined ? { kvCapacityTokens } : {}),
    maxOutput,
    contexts,
    prefillContexts: prefillList,
    concurrency,
    prefill,
    cells,
  };
}
