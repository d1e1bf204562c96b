import { BenchError } from '../errors.js';
import {
  capacityCheckFor,
  fitsModelLen,
  isOverCapacity,
  type CapacityCheck,
  type KvBound,
} from './capacity.js';
import { DEFAULT_CONCURRENCY, decodeContexts, prefillContexts } from './contexts.js';
import { kvDemandTokens } from '../cell-rules.js';

export interface PlanInput {
  maxModelLen?: number;
  kvCapacityTokens?: number;
  kvCapacityBound?: KvBound; // absent: exact
  verifyCapacity?: boolean; // measure the first Over capacity cell of each context even when the capacity is exact
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
  capacityCheck?: CapacityCheck; // status 'run' although the capacity rule says Over capacity
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
  kvCapacityBound?: KvBound;
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
  const cells = contexts.flatMap((c) =>
    contextCells(c, concurrency, { ...input, tooLong: tooLong(c, maxOutput) }),
  );
  return {
    ...(maxModelLen !== undefined ? { maxModelLen } : {}),
    ...(kvCapacityTokens !== undefined ? { kvCapacityTokens } : {}),
    ...(input.kvCapacityBound !== undefined ? { kvCapacityBound: input.kvCapacityBound } : {}),
    maxOutput,
    contexts,
    prefillContexts: prefillList,
    concurrency,
    prefill,
    cells,
  };
}

// The cells of one context in concurrency order: Too long, run, or Over capacity, with the first Over capacity
// cell measured instead when capacityCheckFor says so.
function contextCells(
  c: number,
  concurrency: readonly number[],
  o: PlanInput & { tooLong: string | undefined },
): PlannedCell[] {
  const { kvCapacityTokens, maxOutput } = o;
  let checked = false;
  return concurrency.map((n): PlannedCell => {
    if (o.tooLong) return { contextTokens: c, concurrency: n, status: 'Too long', reason: o.tooLong };
    if (kvCapacityTokens === undefined || !isOverCapacity(c, n, maxOutput, kvCapacityTokens))
      return { contextTokens: c, concurrency: n, status: 'run' };
    const need = kvDemandTokens(c, n, maxOutput);
    const check = checked
      ? undefined
      : capacityCheckFor(need, kvCapacityTokens, o.kvCapacityBound ?? 'exact', o.verifyCapacity ?? false);
    checked = true;
    if (check) return { contextTokens: c, concurrency: n, status: 'run', capacityCheck: check };
    return {
      contextTokens: c,
      concurrency: n,
      status: 'Over capacity',
      reason: `${n} × (${c} + ${maxOutput}) = ${need} > KV capacity ${kvCapacityTokens}`,
    };
  });
}

// After a check cell ran whole (all N at once), the server holds at least its need: re-plan the cells not yet run
// with that as the new lower bound, so the next context's first Over capacity cell is measured too.
// The run's order (docs/method.md "Plan"): contexts ascending, each its prefill point then its cells; prefill-only
// contexts (the full window) in the same order. The runner and the estimate (and so the live ETA) walk it alike.
export function runContexts(plan: Pick<Plan, 'prefill' | 'contexts'>): number[] {
  return [...new Set([...plan.prefill.map((p) => p.contextTokens), ...plan.contexts])].sort((a, b) => a - b);
}

// The throwaway first request of a run (connection and first-use costs), in prompt tokens.
export const CONNECT_PROMPT_TOKENS = 1024;

export function raisedCapacity(plan: Plan, provenTokens: number, input: PlanInput): Plan {
  if (plan.kvCapacityTokens === undefined || provenTokens <= plan.kvCapacityTokens) return plan;
  return buildPlan({ ...input, kvCapacityTokens: provenTokens, kvCapacityBound: 'lower-bound' });
}
