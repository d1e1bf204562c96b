// The workload: what each request asks (docs/workloads.md). `--workload SPEC` in one string
// (`shared-prefix:prefixes=4,prefix=2K,suffix=256`) or the same keys as a YAML object
// (`workload: {kind: shared-prefix, prefixes: 4, prefix: 2K, suffix: 256}`), both checked by one zod schema.
import { z } from 'zod';
import { BenchError } from '../errors.js';
import { parseTokenCount } from '../plan/contexts.js';
import { parseDuration } from '../units.js';
import type { ThinkTime, WorkloadConfig } from '../results/schema.js';
import { parseShape, shapeText, tokensText, type Shape } from './shapes.js';

// Declared once, by the result's schema (config.workload stores exactly this): the parsers below produce it.
export type Think = ThinkTime;
export type WorkloadSpec = WorkloadConfig;
export type WorkloadKind = WorkloadSpec['kind'];

export const WORKLOAD_SYNTAX: Record<WorkloadKind, string> = {
  fixed: 'fixed',
  lengths: 'lengths:file=F.jsonl or lengths:in=normal(8K,2K),out=uniform(128,1K)',
  'shared-prefix': 'shared-prefix:prefixes=P,prefix=L,suffix=S',
  'multi-turn': 'multi-turn:turns=T,think=2s,system=S,message=M,cap=C',
  mooncake: 'mooncake:file=F.jsonl,block=512',
};
export const WORKLOAD_KINDS = Object.keys(WORKLOAD_SYNTAX) as WorkloadKind[];

export const DEFAULT_BLOCK_TOKENS = 512; // the Mooncake traces' block (docs/workloads.md "mooncake")
const MULTI_TURN_DEFAULTS = { turns: 5, think: { dist: 'const', ms: 0 } as Think, system: 0, message: 512 };

// Each value parser gives its value or the problem in words; `via` makes it a zod type.
type Problem = { problem: string };
type Parse<T> = (v: unknown) => T | Problem;
const isProblem = (r: unknown): r is Problem => typeof r === 'object' && r !== null && 'problem' in r;
const problem = (text: string): Problem => ({ problem: text });
const via = <T>(parse: Parse<T>) =>
  z.unknown().transform((v, ctx): T => {
    const r = v === undefined ? problem('missing') : parse(v);
    if (!isProblem(r)) return r;
    ctx.addIssue({ code: 'custom', message: r.problem });
    return z.NEVER;
  });

const TOKENS_MSG = 'expected a token count like 8K, 512 or 1M';
const tokens =
  (zero = false): Parse<number> =>
  (v) => {
    if (zero && (v === 0 || v === '0')) return 0;
    const n = typeof v === 'string' ? parseTokenCount(v) : v;
    return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : problem(TOKENS_MSG);
  };
const count: Parse<number> = (v) => {
  const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n > 0
    ? n
    : problem('expected a whole number like 4');
};
const file: Parse<string> = (v) =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : problem('expected the path of a JSONL file');
const shape: Parse<Shape> = (v) => {
  const r = parseShape(v);
  return typeof r === 'string' ? problem(r) : r;
};
const THINK_MSG = 'expected a think time like 2s, 500ms or exp(2s) (exponential with that mean)';
const think: Parse<Think> = (v) => {
  if (typeof v === 'number') return v >= 0 ? { dist: 'const', ms: v * 1000 } : problem(THINK_MSG);
  if (typeof v !== 'string') return problem(THINK_MSG);
  const exp = /^\s*exp\s*\((.*)\)\s*$/i.exec(v);
  const s = parseDuration(exp ? exp[1]! : v);
  if (s === undefined) return problem(THINK_MSG);
  return exp ? { dist: 'exp', meanMs: s * 1000 } : { dist: 'const', ms: s * 1000 };
};

const SCHEMAS = {
  fixed: z.strictObject({ kind: z.literal('fixed') }),
  lengths: z
    .strictObject({
      kind: z.literal('lengths'),
      file: via(file).optional(),
      in: via(shape).optional(),
      out: via(shape).optional(),
    })
    .superRefine((o, ctx) => {
      if ((o.file === undefined) === (o.in === undefined))
        ctx.addIssue({ code: 'custom', message: 'give either file= or in= (with an optional out=)' });
      else if (o.file !== undefined && o.out !== undefined)
        ctx.addIssue({ code: 'custom', message: 'out= goes with in=; a file gives both lengths' });
    }),
  'shared-prefix': z.strictObject({
    kind: z.literal('shared-prefix'),
    prefixes: via(count).optional(),
    prefix: via(tokens()),
    suffix: via(tokens()),
  }),
  'multi-turn': z.strictObject({
    kind: z.literal('multi-turn'),
    turns: via(count).optional(),
    think: via(think).optional(),
    system: via(tokens(true)).optional(),
    message: via(tokens()).optional(),
    cap: via(tokens()).optional(),
  }),
  mooncake: z.strictObject({
    kind: z.literal('mooncake'),
    file: via(file),
    block: via(count).optional(),
  }),
} satisfies Record<WorkloadKind, z.ZodType>;

// The spec with its defaults filled in, so every reader sees the same object.
function complete(kind: WorkloadKind, o: Record<string, unknown>): WorkloadSpec {
  switch (kind) {
    case 'fixed':
      return { kind };
    case 'lengths':
      return o.file !== undefined
        ? { kind, file: o.file as string }
        : { kind, in: o.in as Shape, ...(o.out !== undefined ? { out: o.out as Shape } : {}) };
    case 'shared-prefix':
      return {
        kind,
        prefixes: (o.prefixes as number) ?? 1,
        prefix: o.prefix as number,
        suffix: o.suffix as number,
      };
    case 'multi-turn': {
      const d = MULTI_TURN_DEFAULTS;
      return {
        kind,
        turns: (o.turns as number) ?? d.turns,
        think: (o.think as Think) ?? d.think,
        system: (o.system as number) ?? d.system,
        message: (o.message as number) ?? d.message,
        ...(o.cap !== undefined ? { cap: o.cap as number } : {}),
      };
    }
    case 'mooncake':
      return { kind, file: o.file as string, block: (o.block as number) ?? DEFAULT_BLOCK_TOKENS };
  }
}

// `k=v,k=v` split at the commas outside parentheses (`in=normal(8K,2K)` is one parameter).
function splitParams(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((p) => p.trim()).filter((p) => p !== '');
}

const isKind = (k: unknown): k is WorkloadKind => typeof k === 'string' && k in WORKLOAD_SYNTAX;
const kindsText = () => WORKLOAD_KINDS.join(', ');

// The fields of a string spec, or the problem.
function fieldsOf(text: string): Record<string, unknown> | string {
  const colon = text.indexOf(':');
  const kind = (colon < 0 ? text : text.slice(0, colon)).trim();
  if (!isKind(kind)) return `unknown workload "${kind}": expected one of ${kindsText()}`;
  const fields: Record<string, unknown> = { kind };
  for (const p of colon < 0 ? [] : splitParams(text.slice(colon + 1))) {
    const eq = p.indexOf('=');
    const key = eq < 0 ? p : p.slice(0, eq).trim();
    if (eq < 0) return `"${p}" has no value: write ${key}=...`;
    if (key === 'kind' || key in fields) return `${key} is given twice`;
    fields[key] = p.slice(eq + 1).trim();
  }
  return fields;
}

/** The workload from a flag's string or a YAML object, or its problem in one line (with the kind's syntax). */
export function readWorkload(v: unknown): WorkloadSpec | string {
  const fields =
    typeof v === 'string'
      ? fieldsOf(v)
      : v !== null && typeof v === 'object' && !Array.isArray(v)
        ? (v as Record<string, unknown>)
        : `expected a workload like ${WORKLOAD_SYNTAX['shared-prefix']}`;
  if (typeof fields === 'string') return fields;
  const kind = fields.kind;
  if (!isKind(kind))
    return `${kind === undefined ? 'no kind' : `unknown kind "${String(kind)}"`}: expected one of ${kindsText()}`;
  const schema = SCHEMAS[kind] as z.ZodType<Record<string, unknown>>;
  const r = schema.safeParse(fields);
  if (r.success) return complete(kind, r.data);
  const issue = r.error.issues[0]!;
  const keys = Object.keys((SCHEMAS[kind] as z.ZodObject).shape);
  const where =
    issue.code === 'unrecognized_keys'
      ? `unknown parameter ${issue.keys.join(', ')} (${kind} takes ${keys.filter((k) => k !== 'kind').join(', ') || 'none'})`
      : `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`;
  return `${kind}: ${where}; write ${WORKLOAD_SYNTAX[kind]}`;
}

/** readWorkload, its problem thrown as one CONFIG_INVALID line naming where the spec came from. */
export function parseWorkload(v: unknown, where = '--workload'): WorkloadSpec {
  const r = readWorkload(v);
  if (typeof r !== 'string') return r;
  throw new BenchError('CONFIG_INVALID', `${where}: ${r}`, {
    hint: 'The workloads and their parameters: docs/workloads.md.',
  });
}

const durationText = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

/** The spec in its string form, defaults written out: readWorkload(workloadLabel(s)) gives s back. */
export function workloadLabel(s: WorkloadSpec): string {
  const params: string[] = [];
  switch (s.kind) {
    case 'fixed':
      return 'fixed';
    case 'lengths':
      if ('file' in s) params.push(`file=${s.file}`);
      else params.push(`in=${shapeText(s.in)}`, ...(s.out ? [`out=${shapeText(s.out)}`] : []));
      break;
    case 'shared-prefix':
      params.push(
        `prefixes=${s.prefixes}`,
        `prefix=${tokensText(s.prefix)}`,
        `suffix=${tokensText(s.suffix)}`,
      );
      break;
    case 'multi-turn': {
      const t = s.think.dist === 'exp' ? `exp(${durationText(s.think.meanMs)})` : durationText(s.think.ms);
      params.push(`turns=${s.turns}`, `think=${t}`, `system=${tokensText(s.system)}`);
      params.push(`message=${tokensText(s.message)}`, ...(s.cap ? [`cap=${tokensText(s.cap)}`] : []));
      break;
    }
    case 'mooncake':
      params.push(`file=${s.file}`, `block=${s.block}`);
  }
  return `${s.kind}:${params.join(',')}`;
}
