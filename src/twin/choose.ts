import { DEFAULT_CONCURRENCY, decodeContexts, prefillContexts } from '../plan/contexts.js';
import type { RunResult } from '../results/schema.js';
import { selectObservations, type Observations } from './observe.js';
import type { TwinMeta } from './twin.js';
import { cellKey } from '../cell-rules.js';

// The few cells that pin a twin's parameters (docs/twin.md): at the smallest context a ladder of concurrency
// levels (x4 apart, then x2 over the top two doublings) up to the largest (batch curve, and the queued cell where the server has fewer seats), then
// at a middle and the largest context the lowest level (context slope, API time) and the largest that fits
// (KV capacity from below, context slope under load) plus the next level up when it is over capacity (free:
// never run, it bounds the capacity from above). Prefill at the smallest, middle and largest prefill context.

export interface TwinCell {
  contextTokens: number;
  concurrency: number;
  fits: boolean; // false: Over capacity, recorded not run
}

export interface TwinChoice {
  cells: TwinCell[];
  prefillContexts: number[];
}

export const MAX_TWIN_CELLS = 12;

const middle = <T>(xs: readonly T[]): T => xs[Math.round((xs.length - 1) / 2)]!;

export function chooseTwinCells(
  contexts: readonly number[],
  concurrency: readonly number[],
  prefillContexts: readonly number[],
  fits: (contextTokens: number, concurrency: number) => boolean,
  bracketCapacity = true,
): TwinChoice {
  const ctx = [...new Set(contexts)].sort((a, b) => a - b);
  const conc = [...new Set(concurrency)].sort((a, b) => a - b);
  const cells: TwinCell[] = [];
  const add = (c: number, n: number) => {
    if (!cells.some((x) => x.contextTokens === c && x.concurrency === n))
      cells.push({ contextTokens: c, concurrency: n, fits: fits(c, n) });
  };
  const first = ctx[0]!;
  // x4 apart from the bottom, then every level of the top two doublings: steps bend most where the batch
  // nears the engine's limits, and the seeds' H200 jumps between 32 and 64.
  const top = conc.filter((n) => fits(first, n));
  const high = top.length ? top[top.length - 1]! / 4 : Infinity;
  const ladder: number[] = [];
  for (const n of conc)
    if (n >= high || ladder.length === 0 || n >= 4 * ladder[ladder.length - 1]!) ladder.push(n);
  for (const n of ladder.sort((a, b) => a - b)) if (fits(first, n)) add(first, n);
  const over = conc.find((n) => !fits(first, n));
  if (over !== undefined) add(first, over);
  for (const c of [...new Set([middle(ctx), ctx[ctx.length - 1]!])].filter((c) => c !== first)) {
    const ok = conc.filter((n) => fits(c, n));
    if (ok.length === 0) continue;
    add(c, ok[0]!);
    // Without a bracket to find (the server reports its capacity), the second level pins the slope under load
    // for one more cold prefill, where the largest that fits could cost a dozen of a long prompt.
    if (!bracketCapacity) {
      if (ok.length > 1) add(c, ok[1]!);
      continue;
    }
    add(c, ok[ok.length - 1]!);
    const next = conc.find((n) => !fits(c, n));
    if (next !== undefined) add(c, next);
  }
  const pre = [...new Set(prefillContexts)].sort((a, b) => a - b);
  return {
    cells: cells.slice(0, MAX_TWIN_CELLS),
    prefillContexts: [...new Set([pre[0]!, middle(pre), pre[pre.length - 1]!])],
  };
}

/** The observations of a full result that a `--for-twin` run would have measured (its Over capacity cells
 * are the capacity knowledge that run's plan had). */
export function twinSubset(obs: Observations, result: RunResult): Observations {
  const over = new Set(
    obs.decode
      .filter((d) => d.status === 'Over capacity')
      .map((d) => cellKey(d.contextTokens, d.concurrency)),
  );
  const c = result.config;
  const choice = chooseTwinCells(
    c.contexts,
    c.concurrency,
    c.prefillContexts,
    (ctx, n) => !over.has(cellKey(ctx, n)),
    result.target.kvCapacityTokens === undefined,
  );
  return selectObservations(obs, {
    decode: new Set(choice.cells.map((x) => cellKey(x.contextTokens, x.concurrency))),
    prefill: new Set(choice.prefillContexts),
  });
}

/** What a twin predicts by default: the matrix one fitted result planned; for several (the short runs of
 * `plan --for-twin`), the full default matrix of the server, with every measured level in it. */
export function planOfResults(results: readonly RunResult[]): TwinMeta['plan'] {
  const r = results[0]!;
  const base = {
    contexts: r.config.contexts,
    concurrency: r.config.concurrency,
    prefillContexts: r.config.prefillContexts,
    maxOutput: r.config.maxOutput,
    windowS: r.config.duration,
  };
  if (results.length === 1) return base;
  const maxLen = Math.max(0, ...results.map((x) => x.target.maxModelLen ?? 0)) || undefined;
  const all = (f: (x: RunResult) => number[], extra: readonly number[]) =>
    [...new Set([...extra, ...results.flatMap(f)])].sort((a, b) => a - b);
  const contexts = all((x) => x.config.contexts, maxLen ? decodeContexts(maxLen, base.maxOutput) : []);
  return {
    ...base,
    contexts,
    concurrency: all((x) => x.config.concurrency, DEFAULT_CONCURRENCY),
    prefillContexts: all((x) => x.config.prefillContexts, prefillContexts(maxLen, contexts)),
    windowS: Math.max(...results.map((x) => x.config.duration)),
  };
}

export const planOfResult = (r: RunResult): TwinMeta['plan'] => planOfResults([r]);
