import { kvDemandTokens } from '../cell-rules.js';
import {
  engineOf,
  kvLayoutOf,
  llamacppSlots,
  ownKvShare,
  pad256,
  shellWords,
  type EngineFacts,
  type KvLayout,
} from '../engines/index.js';
import { contextLabel, fmtInt } from '../format/index.js';
import type { DecodeCell, RunResult } from '../results/schema.js';

// What a result tells of the server's limits under its engine's model (src/engines; docs/method.md "Why the limit is
// there"): the seats and the KV it states, how its KV is laid out, and what stays unknown; then which of them bind when
// N users run at context C, and what N users at once would need.

export interface ServerLimits {
  engine: EngineFacts;
  seats?: number; // requests it runs at once, as it states it
  seatsSource?: string;
  kvTokens?: number; // the pool (llama.cpp: what -c sizes)
  kvExact: boolean;
  kvSource?: string;
  layout?: KvLayout; // known: the engine has one, the server or its launch command said, or the run proved it
  layoutProof?: string; // how the run proved it, in words
  slotTokens?: number; // a slot's context as the API shows it (llama.cpp's n_ctx, Ollama's num_ctx): the max model length
  unknown: Array<'kv' | 'layout'>; // what the result cannot tell
}

// A full shared pool, said in the engine's words, where N requests' prompts fit N slots had they been split: only a
// unified pool fails so (a split slot refuses a prompt too long for it up front and ends a full answer with "length").
export function provenShared(
  r: RunResult,
  e: EngineFacts,
  seats: number | undefined,
  slot: number | undefined,
): { cell: DecodeCell; count: number; message: string } | undefined {
  const full = e.errors.poolFull?.toLowerCase();
  if (!full || seats === undefined || slot === undefined) return undefined;
  for (const cell of [...r.decode].sort((a, b) => a.concurrency - b.concurrency)) {
    const said = cell.serverErrors?.find((s) => s.message.toLowerCase().includes(full));
    if (said && cell.concurrency * cell.contextTokens <= seats * slot)
      return { cell, count: said.count, message: said.message };
  }
  return undefined;
}

export function serverLimits(r: RunResult): ServerLimits {
  const engine = engineOf(r.engine.name);
  const launch = r.launchCommand ? engine.readLaunch(shellWords(r.launchCommand), {}) : undefined;
  const seats = r.target.seats ?? launch?.seats;
  const seatsSource = r.target.seats
    ? r.target.seatsSource
    : launch?.seats
      ? (launch.seatsSource ?? launch.source)
      : undefined;
  const kvTokens = r.target.kvCapacityTokens;
  const perRequest = engine.limits.layouts.some(ownKvShare);
  const slotTokens = perRequest ? r.target.maxModelLen : undefined;
  let layout = kvLayoutOf(engine.name, r.target.kvLayout ?? launch?.layout);
  let layoutProof: string | undefined;
  if (layout === undefined) {
    const shared = provenShared(r, engine, seats, slotTokens);
    if (shared) {
      layout = 'unified';
      const { contextTokens: C, concurrency: N } = shared.cell;
      layoutProof =
        `it answered "${shared.message}" at ${N} users × ${contextLabel(C)}, within ${seats} slots × ` +
        `${fmtInt(slotTokens)} had they been split`;
    }
  }
  // A shared pool proved by the run is the slot's context (what /props shows), not the n_ctx × slots read before.
  const proved = layoutProof !== undefined && slotTokens !== undefined;
  const kv = proved ? slotTokens : kvTokens;
  const unknown: ServerLimits['unknown'] = [];
  if (layout === undefined && engine.limits.layouts.length > 1) unknown.push('layout');
  if (
    kv === undefined ||
    (engine.limits.unknownFromApi.includes('kv') && r.target.kvCapacitySource !== '--kv-capacity')
  )
    unknown.push('kv');
  return {
    engine,
    ...(seats !== undefined ? { seats, seatsSource: seatsSource ?? 'the server' } : {}),
    ...(kv !== undefined ? { kvTokens: kv } : {}),
    kvExact: proved || (kv !== undefined && (r.target.kvCapacityBound ?? 'exact') === 'exact'),
    ...(proved
      ? { kvSource: 'the slot context, a pool the slots share' }
      : r.target.kvCapacitySource
        ? { kvSource: r.target.kvCapacitySource }
        : {}),
    ...(layout ? { layout } : {}),
    ...(layoutProof ? { layoutProof } : {}),
    ...(slotTokens !== undefined ? { slotTokens } : {}),
    unknown,
  };
}

export interface Binding {
  seats: boolean; // more users than the seats it states
  kv: boolean | undefined; // N users at once would not fit the KV as it is; undefined: unknown
  need: number; // KV tokens N users at C with full answers take: N × (C + max output)
  // The KV readings where the layout is unknown (llama.cpp): the pool if split, if unified.
  readings?: { split: number; unified: number };
}

// Whether N users at context C fit, limit by limit. llama.cpp split: N slots cut from the same -c, each needing
// C + max output; unified and one-pool engines: N × (C + max output) within the pool; Ollama: N contexts of their own,
// in memory the API does not show (unknown unless --kv-capacity stated it).
export function bindingAt(l: ServerLimits, C: number, N: number, maxOutput: number): Binding {
  const need = kvDemandTokens(C, N, maxOutput);
  const seats = l.seats !== undefined && N > l.seats;
  const splitShort = (c: number) =>
    llamacppSlots({ ctx: c, slots: N, unified: false }).nCtxSeq < C + maxOutput;
  if (l.kvTokens === undefined || l.unknown.includes('kv')) return { seats, kv: undefined, need };
  switch (l.layout) {
    case 'split':
      return { seats, kv: splitShort(l.kvTokens), need };
    case 'per-request':
      return { seats, kv: N * (l.slotTokens ?? C + maxOutput) > l.kvTokens, need };
    case undefined: {
      // llama.cpp read from its API alone: n_ctx × slots if split, n_ctx if the slots share it; a figure given
      // exactly (--kv-capacity) is the pool either way.
      const unified = l.kvExact ? l.kvTokens : (l.slotTokens ?? l.kvTokens);
      const split = l.kvTokens;
      const s = splitShort(split);
      const u = need > unified;
      return {
        seats,
        kv: s === u ? s : undefined,
        need,
        ...(l.kvExact ? {} : { readings: { split, unified } }),
      };
    }
    default:
      return { seats, kv: need > l.kvTokens, need };
  }
}

// What N users at context C at once need, as settings: the seats raised to N where they bind, and the KV that holds
// them (llama.cpp split: N slots each keeping the context a slot has now, or C + max output if more; unified and
// one-pool engines: N × (C + max output)).
export function needFor(
  l: ServerLimits,
  b: Binding,
  C: number,
  N: number,
  maxOutput: number,
): { seats?: number; kvTokens?: number } {
  // Unknown split or unified: the split figure, which a shared pool holds too.
  const split = l.layout === 'split' || (l.layout === undefined && l.engine.limits.layouts.includes('split'));
  const kvTokens = split
    ? N * pad256(Math.max(l.slotTokens ?? 0, C + maxOutput))
    : Math.max(b.need, l.kvTokens ?? 0);
  return {
    ...(b.seats ? { seats: N } : {}),
    ...(b.kv ? { kvTokens } : {}),
  };
}
