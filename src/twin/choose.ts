import { DEFAULT_CONCURRENCY, decodeContexts, prefillContexts } from '../plan/contexts.js';
import type { RunResult } from '../results/schema.js';
import { selectObservations, type Observations } from './observe.js';
import type { TwinMeta } from './twin.js';
import { cellKey } from '../cell-rules.js';

// The cells that pin a twin's parameters (docs/twin.md "A short run for fitting"), one rule for `plan --for-twin`
// and `fit --twin-cells`: at the smallest context every concurrency level that fits (the batch curve, measured
// where short prompts make it cheap; the largest is the queued cell where the server has fewer seats), then at a
// middle and at the largest context the lowest level (context slope, API time) and, where the plan knows the KV
// capacity, the largest level that fits (context slope under load, KV capacity from below) and the next one up,
// over capacity (recorded, never run: it bounds the capacity from above). Where the plan does not know the
// capacity it cannot tell which level fits: the lowest two levels, and the runs must learn the capacity from the
// server (or `fit --kv-capacity`). Prefill at the smallest, middle and largest prefill context.

export interface TwinCell {
  contextTokens: number;
  concurrency: number;
  fits: boolean; // false: Over capacity, recorded not run
}

export interface TwinChoice {
  cells: TwinCell[];
  prefillContexts: number[];
}

/** Whether N requests of C tokens fit the KV capacity; undefined where the plan does not know the capacity. */
export type Fits = (contextTokens: number, concurrency: number) => boolean | undefined;

const middle = <T>(xs: readonly T[]): T => xs[Math.round((xs.length - 1) / 2)]!;

export function chooseTwinCells(
  contexts: readonly number[],
  concurrency: readonly number[],
  prefillContexts: readonly number[],
  fits: Fits,
): TwinChoice {
  const ctx = [...new Set(contexts)].sort((a, b) => a - b);
  const conc = [...new Set(concurrency)].sort((a, b) => a - b);
  const cells: TwinCell[] = [];
  const add = (c: number, n: number | undefined) => {
    if (n !== undefined && !cells.some((x) => x.contextTokens === c && x.concurrency === n))
      cells.push({ contextTokens: c, concurrency: n, fits: fits(c, n) !== false });
  };
  const first = ctx[0]!;
  for (const n of conc) if (fits(first, n) !== false) add(first, n);
  add(
    first,
    conc.find((n) => fits(first, n) === false),
  );
  for (const c of [...new Set([middle(ctx), ctx[ctx.length - 1]!])].filter((c) => c !== first)) {
    const ok = conc.filter((n) => fits(c, n) !== false);
    add(c, ok[0]);
    if (conc.some((n) => fits(c, n) === undefined)) {
      add(c, ok[1]);
      continue;
    }
    add(c, ok[ok.length - 1]);
    add(
      c,
      conc.find((n) => fits(c, n) === false),
    );
  }
  const pre = [...new Set(prefillContexts)].sort((a, b) => a - b);
  return {
    cells,
    prefillContexts: [...new Set([pre[0]!, middle(pre), pre[pre.length - 1]!])],
  };
}

/** What the plan that measured a result knew of the KV capacity: its Over capacity cells, or nothing. */
export function resultFits(obs: Observations, result: RunResult): Fits {
  const over = new Set(
    obs.decode
      .filter((d) => d.status === 'Over capacity')
      .map((d) => cellKey(d.contextTokens, d.concurrency)),
  );
  const known = result.target.kvCapacityTokens !== undefined || over.size > 0;
  return (ctx, n) => (known ? !over.has(cellKey(ctx, n)) : undefined);
}

/** The observations of a full result that a `--for-twin` run would have measured (its Over capacity cells
 * are the capacity knowledge that run's plan had). */
export function twinSubset(obs: Observations, result: RunResult): Observations {
  const c = result.config;
  const choice = chooseTwinCells(c.contexts, c.concurrency, c.prefillContexts, resultFits(obs, result));
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
