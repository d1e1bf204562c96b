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
import { contextLabel, fmtInt } from '../format/index.js';
import type { KvLayout } from '../engines/index.js';
import { checkOptions, keysOf } from '../option-keys.js';
import type { PlannedRow } from './levels.js';

export interface PlanInput {
  maxModelLen?: number;
  kvCapacityTokens?: number;
  kvCapacityBound?: KvBound; // absent: exact
  kvLayout?: KvLayout; // how the server lays its KV out (src/engines kvLayoutOf); absent: unknown, read as one pool
  verifyCapacity?: boolean; // measure the first Over capacity cell of each context even when the capacity is exact
  maxOutput: number;
  contexts?: number[]; // decode contexts; default from maxModelLen
  prefillContexts?: number[]; // default: decode contexts + full window
  concurrency?: number[];
  closedLoop?: boolean; // false: no prefill points and no decode cells (a run of rates or a trace alone)
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
  kvLayout?: KvLayout;
  maxOutput: number;
  contexts: number[];
  prefillContexts: number[];
  concurrency: number[];
  prefill: PlannedPrefill[];
  cells: PlannedCell[]; // order of execution: contexts ascending, concurrency ascending
  levels?: PlannedRow[]; // load levels (src/plan/levels.ts): each context's after its cells, then other rows
}

const sortedUnique = (xs: readonly number[]): number[] => [...new Set(xs)].sort((a, b) => a - b);

const KEYS = keysOf<PlanInput>({
  maxModelLen: true,
  kvCapacityTokens: true,
  kvCapacityBound: true,
  kvLayout: true,
  verifyCapacity: true,
  maxOutput: true,
  contexts: true,
  prefillContexts: true,
  concurrency: true,
  closedLoop: true,
});

export function buildPlan(input: PlanInput): Plan {
  checkOptions('buildPlan', input, KEYS);
  const { maxModelLen, kvCapacityTokens, maxOutput } = input;
  let contexts: number[];
  const closed = input.closedLoop !== false;
  // Without a closed loop a workload other than fixed has no contexts: its one row is the workload.
  if (input.contexts && (input.contexts.length > 0 || !closed)) contexts = sortedUnique(input.contexts);
  else if (maxModelLen !== undefined) contexts = decodeContexts(maxModelLen, maxOutput);
  else
    throw new BenchError('USAGE', 'cannot choose contexts: the max model length is unknown.', {
      hint: 'Give --max-model-len N or --contexts 8K,16K,... (or --base-url to probe the server).',
    });
  const prefillList = !closed
    ? []
    : input.prefillContexts && input.prefillContexts.length > 0
      ? sortedUnique(input.prefillContexts)
      : prefillContexts(maxModelLen, contexts);
  const concurrency = !closed
    ? []
    : sortedUnique(input.concurrency?.length ? input.concurrency : DEFAULT_CONCURRENCY);
  const tooLong = (c: number, out: number) =>
    fitsModelLen(c, out, maxModelLen)
      ? undefined
      : `context ${fmtInt(c)} + ${fmtInt(out)} output token${out === 1 ? '' : 's'} exceeds the server's max model length ${fmtInt(maxModelLen)}`;

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
    ...(input.kvLayout !== undefined ? { kvLayout: input.kvLayout } : {}),
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
    if (kvCapacityTokens === undefined || !isOverCapacity(c, n, maxOutput, kvCapacityTokens, o.kvLayout))
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
  const raised = buildPlan({ ...input, kvCapacityTokens: provenTokens, kvCapacityBound: 'lower-bound' });
  return plan.levels ? { ...raised, levels: plan.levels } : raised;
}

// Contexts too long for the server (docs/method.md "Errors"). Every requested one: nothing to measure, so the run
// (and `plan`) refuses before any load. Some: the plan skips them, nothing is sent for them, and a note says so.

// As a user writes a count: 2M, 1020K, else the tokens.
const tokensLabel = (n: number): string =>
  n % 1_048_576 === 0 ? `${n / 1_048_576}M` : n % 1024 === 0 ? contextLabel(n) : fmtInt(n);

interface TooLongContexts {
  maxModelLen: number;
  decode: number[]; // decode contexts whose cells are Too long
  prefill: number[]; // prefill-only points (given by --prefill-contexts) that are Too long
}

function tooLongContexts(plan: Plan): TooLongContexts | undefined {
  if (plan.maxModelLen === undefined) return undefined;
  const decode = plan.contexts.filter((c) =>
    plan.cells.some((x) => x.contextTokens === c && x.status === 'Too long'),
  );
  const prefill = plan.prefill
    .filter((p) => p.status === 'Too long' && !plan.contexts.includes(p.contextTokens))
    .map((p) => p.contextTokens);
  return decode.length + prefill.length ? { maxModelLen: plan.maxModelLen, decode, prefill } : undefined;
}

// What is too long and why: "--contexts 2M", "exceeds the server's max model length 1,048,576 (1M) with 4,096
// output tokens; the longest it takes is 1,044,480 (1020K)".
function tooLongText(t: TooLongContexts, maxOutput: number): { what: string; many: boolean; why: string } {
  const list = (flag: string, xs: number[]) => `${flag} ${xs.map(tokensLabel).join(',')}`;
  const named = [
    ...(t.decode.length ? [list('--contexts', t.decode)] : []),
    ...(t.prefill.length ? [list('--prefill-contexts', t.prefill)] : []),
  ];
  const many = t.decode.length + t.prefill.length > 1;
  const out = t.decode.length ? ` with ${fmtInt(maxOutput)} output tokens` : '';
  // A decode context fits with its output, a prefill point with one token; labelled (1020K) only where exact.
  const longest = t.decode.length ? t.maxModelLen - maxOutput : t.maxModelLen - 1;
  const takes =
    longest > 0
      ? `the longest it takes is ${fmtInt(longest)}${longest % 1024 === 0 ? ` (${tokensLabel(longest)})` : ''}`
      : `no context fits with ${fmtInt(maxOutput)} output tokens`;
  const why = `the server's max model length ${fmtInt(t.maxModelLen)} (${tokensLabel(t.maxModelLen)})${out}; ${takes}`;
  return { what: named.join(' and '), many, why };
}

// Every decode context too long, and every prefill context the user asked for (the full window alone was not
// asked for): refused with one line before anything is sent.
export function refuseAllTooLong(plan: Plan, prefillGiven: boolean): void {
  const t = tooLongContexts(plan);
  if (!t || t.decode.length < plan.contexts.length) return;
  if (prefillGiven && plan.prefill.some((p) => p.status === 'run')) return;
  const { what, many, why } = tooLongText({ ...t, prefill: prefillGiven ? t.prefill : [] }, plan.maxOutput);
  throw new BenchError('CONTEXT_TOO_LONG', `${what} ${many ? 'exceed' : 'exceeds'} ${why}`, {
    hint: 'No prompt was sent: give shorter --contexts (or a smaller --max-output).',
  });
}

// Some contexts too long: what the run says as it starts, and its error at the end (undefined when all fit).
export function tooLongNote(plan: Plan): { note: string; error: string } | undefined {
  const t = tooLongContexts(plan);
  if (!t) return undefined;
  const { what, many, why } = tooLongText(t, plan.maxOutput);
  return {
    note: `${what} ${many ? 'are' : 'is'} skipped (nothing is sent for ${many ? 'them' : 'it'}): ${many ? 'they exceed' : 'it exceeds'} ${why}`,
    error: `${what} ${many ? 'exceed' : 'exceeds'} ${why}`,
  };
}
