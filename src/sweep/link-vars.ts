import { LLAMACPP_FLAGS, llamacppSlots } from '../engines/llamacpp.js';
import { BenchError } from '../errors.js';
import { DEFAULT_CONCURRENCY, parseTokenCount } from '../plan/contexts.js';
import type { ParamSet, ParamValue } from './params.js';

// --link-vars (docs/sweep.md "Linked settings"): a server flag that fixes a run setting. `np=concurrency` makes
// llama.cpp's slot count the top concurrency level (more would only queue); `max_model_len=max-model-len` bounds
// the contexts; `c/np=max-model-len` is llama.cpp's per-slot context (-c split over -np slots, padded as llama.cpp pads
// it: src/engines/llamacpp.ts), undivided in a configuration with --kv-unified, where every slot may address the
// whole pool.

export const LINK_TARGETS = ['concurrency', 'max-model-len', 'kv-capacity'] as const;
export type LinkTarget = (typeof LINK_TARGETS)[number];

export interface Link {
  param: string;
  divisor?: string; // c/np: the value of c divided by the value of np
  target: LinkTarget;
}

// The run settings a configuration's links set.
export interface Linked {
  concurrency?: number[];
  maxModelLen?: number;
  kvCapacity?: number;
  notes: string[]; // "np=4: concurrency up to 4"
}

// Flag names compare without dashes, case or _/- differences: -np, np and --NP are one name.
export const normalName = (name: string): string => name.replace(/^-+/, '').toLowerCase().replace(/_/g, '-');

const USAGE_HINT =
  'Write PARAM=TARGET pairs, e.g. --link-vars "max_num_seqs=concurrency,max_model_len=max-model-len" or ' +
  '"np=concurrency,c/np=max-model-len"; targets: concurrency, max-model-len, kv-capacity.';

export function parseLinkVars(spec: string): Link[] {
  const links: Link[] = [];
  for (const part of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([^=/\s]+)(?:\s*\/\s*([^=/\s]+))?\s*=\s*([\w-]+)$/.exec(part);
    const target = m?.[3]?.toLowerCase().replace(/_/g, '-');
    if (!m || !LINK_TARGETS.includes(target as LinkTarget))
      throw new BenchError('CONFIG_INVALID', `--link-vars: cannot read "${part}".`, { hint: USAGE_HINT });
    links.push({ param: m[1]!, ...(m[2] ? { divisor: m[2] } : {}), target: target as LinkTarget });
  }
  if (links.length === 0)
    throw new BenchError('CONFIG_INVALID', '--link-vars is empty.', { hint: USAGE_HINT });
  for (const t of LINK_TARGETS)
    if (links.filter((l) => l.target === t).length > 1)
      throw new BenchError('CONFIG_INVALID', `--link-vars sets ${t} twice.`, { hint: USAGE_HINT });
  return links;
}

// A configuration's value of a flag or environment variable, by its normal name.
export function lookup(set: ParamSet, name: string): ParamValue | undefined {
  const want = normalName(name);
  for (const [k, v] of Object.entries(set.params)) if (normalName(k) === want) return v;
  for (const [k, v] of Object.entries(set.env)) if (normalName(k) === want) return v;
  return undefined;
}

const TRUE = new Set(['true', '1', 'on', 'yes', '']);

// llama.cpp's unified KV: one pool every slot addresses whole.
export function kvUnified(set: ParamSet): boolean {
  const v = LLAMACPP_FLAGS.unified.map((f) => lookup(set, f)).find((x) => x !== undefined);
  return v !== undefined && !Array.isArray(v) && TRUE.has(String(v).toLowerCase());
}

function count(set: ParamSet, name: string): number {
  const v = lookup(set, name);
  const n = typeof v === 'number' ? v : typeof v === 'string' ? parseTokenCount(v) : undefined;
  if (n === undefined || !Number.isInteger(n) || n < 1)
    throw new BenchError(
      'CONFIG_INVALID',
      `--link-vars: ${name} is ${v === undefined ? 'not set' : `"${String(v)}"`} in the configuration "${set.name}", not a positive whole number.`,
      { hint: 'Set it to a number in every configuration the link applies to, or drop the link.' },
    );
  return n;
}

// A link applies to a configuration that sets its flag (named configurations may differ in their flags).
export function applyLinks(
  links: readonly Link[],
  set: ParamSet,
  run: { concurrency?: readonly number[]; maxModelLen?: number },
): Linked {
  const out: Linked = { notes: [] };
  for (const l of links) {
    if (lookup(set, l.param) === undefined) continue;
    const base = count(set, l.param);
    const unified = kvUnified(set);
    const slots = l.divisor === undefined ? undefined : unified ? 1 : count(set, l.divisor);
    const value = slots === undefined ? base : llamacppSlots({ ctx: base, slots, unified }).nCtxSeq;
    const from = l.divisor !== undefined && !unified ? `${l.param}/${l.divisor}` : l.param;
    if (l.target === 'concurrency') {
      const levels = [...(run.concurrency ?? DEFAULT_CONCURRENCY)].filter((n) => n < value);
      out.concurrency = [...levels, value];
      out.notes.push(`${from}=${value}: concurrency ${out.concurrency.join(',')}`);
    } else if (l.target === 'max-model-len') {
      out.maxModelLen = run.maxModelLen === undefined ? value : Math.min(value, run.maxModelLen);
      out.notes.push(`${from}=${value}: contexts up to a max model length of ${out.maxModelLen}`);
    } else {
      out.kvCapacity = value;
      out.notes.push(`${from}=${value}: KV capacity ${value} tokens`);
    }
  }
  return out;
}

// Links naming a flag no configuration sets are a typo, said before anything starts.
export function checkLinks(links: readonly Link[], sets: readonly ParamSet[]): void {
  for (const l of links)
    for (const name of [l.param, ...(l.divisor ? [l.divisor] : [])])
      if (!sets.some((s) => lookup(s, name) !== undefined))
        throw new BenchError(
          'CONFIG_INVALID',
          `--link-vars names ${name}, which no configuration in --serve-params sets.`,
          { hint: 'Use a flag or environment variable name from the params file.' },
        );
}
