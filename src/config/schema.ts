import { z } from 'zod';
import { parseTokenCount } from '../plan/contexts.js';
import { parseServiceLevel } from '../stats/slo.js';
import type { OptionRow, OptionSpec } from './options.js';
import { cellKey } from '../cell-rules.js';
import { parseDuration } from '../units.js';
import { readWorkload } from '../workloads/spec.js';

export { parseDuration } from '../units.js';

// A share from 5% or 5 (percent) as a fraction, 0 included (--fail-on 0%: any significant slowdown); undefined
// from 100% up.
export function parsePercent(v: unknown): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(String(v));
  const share = m ? Number(m[1]) / 100 : -1;
  return share >= 0 && share < 1 ? share : undefined;
}

// A decode cell "8Kx16" as its key "8192x16" (context tokens x concurrency).
export function parseCell(v: unknown): string | undefined {
  const m = typeof v === 'string' ? /^\s*([^x×]+?)\s*[x×]\s*(\d+)\s*$/.exec(v) : null;
  const context = m ? parseTokenCount(m[1]!) : undefined;
  const concurrency = m ? Number(m[2]) : 0;
  return context === undefined || concurrency < 1 ? undefined : cellKey(context, concurrency);
}

// A KV capacity: tokens (3000000, 3M) or a factor of a fitted one (1.5x).
export function parseCapacity(v: unknown): { tokens: number } | { factor: number } | undefined {
  const factor = /^\s*(\d+(?:\.\d+)?)\s*x\s*$/i.exec(String(v));
  if (factor) return Number(factor[1]) > 0 ? { factor: Number(factor[1]) } : undefined;
  const tokens = typeof v === 'string' ? parseTokenCount(v) : v;
  return typeof tokens === 'number' && Number.isInteger(tokens) && tokens > 0 ? { tokens } : undefined;
}

// A zod type of whatever `parse` makes of the value, or `message` where it makes nothing.
const parsedBy = <T>(parse: (v: unknown) => T | undefined, message: string) =>
  z.unknown().transform((v, ctx) => {
    const r = parse(v);
    if (r !== undefined) return r;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });

// A list from a flag's "a,b,c" or a YAML list, each value of `item`'s type, at least one.
const listOf = (item: z.ZodType) =>
  z.preprocess(listFromString, z.array(item, 'expected a list').min(1, 'expected at least one value'));

// A zod type of a parser that gives the value, or the problem in words.
const orProblem = <T>(parse: (v: unknown) => T | string) =>
  z.unknown().transform((v, ctx) => {
    const r = parse(v);
    if (typeof r !== 'string') return r;
    ctx.addIssue({ code: 'custom', message: r });
    return z.NEVER;
  });

const tokenCount = (v: unknown): unknown => (typeof v === 'string' ? (parseTokenCount(v) ?? v) : v);
const numberFromString = (v: unknown): unknown =>
  typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
const listFromString = (v: unknown): unknown =>
  typeof v === 'string'
    ? v
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== '')
    : typeof v === 'number'
      ? [v]
      : v;

const durationFromString = (v: unknown): unknown => (typeof v === 'string' ? (parseDuration(v) ?? v) : v);

const TOKENS_MSG = 'expected a token count like 8K, 1M or 8192';
const DURATION_MSG = 'expected a duration like 30, 30s or 2m';
const PERCENT_MSG = 'expected a percentage from 0 up to 100, such as 5%';
const CELL_MSG = 'expected a cell like 8Kx16 (context x concurrency)';
const RATE_MSG = 'expected a rate in requests per second, like 0.5 or 4';
const CAPACITY_MSG = 'expected tokens like 3000000 or 3M, or a factor like 1.5x';

function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

// The zod type of one option, accepting a flag's string or a YAML value.
export function zodFor(o: OptionSpec): z.ZodType {
  const { min, max } = o;
  const withMin = (s: z.ZodNumber): z.ZodNumber => {
    const low = min === undefined ? s : s.min(min, `expected a value >= ${min}`);
    return max === undefined ? low : low.max(max, `expected a value <= ${max}`);
  };
  switch (o.kind) {
    case 'string':
      return o.choices
        ? z.enum(o.choices as [string, ...string[]], `expected one of ${o.choices.join(', ')}`)
        : z.string('expected text').min(1, 'expected text');
    case 'url':
      return z.string('expected a URL').refine(isHttpUrl, 'expected an http:// or https:// URL');
    case 'int':
      return z.preprocess(
        numberFromString,
        withMin(z.number('expected a number').int('expected an integer')),
      );
    case 'number':
      return z.preprocess(numberFromString, withMin(z.number('expected a number')));
    case 'duration':
      return z.preprocess(durationFromString, withMin(z.number(DURATION_MSG)));
    case 'bool':
      return z.boolean('expected true or false');
    case 'tokens':
      return z.preprocess(tokenCount, withMin(z.number(TOKENS_MSG).int(TOKENS_MSG).positive(TOKENS_MSG)));
    case 'tokens-list':
      return listOf(z.preprocess(tokenCount, z.number(TOKENS_MSG).int(TOKENS_MSG).positive(TOKENS_MSG)));
    case 'int-list':
      return listOf(
        z.preprocess(numberFromString, withMin(z.number('expected a number').int('expected an integer'))),
      );
    case 'percent':
      return parsedBy(parsePercent, PERCENT_MSG);
    case 'cell-list':
      return listOf(parsedBy(parseCell, CELL_MSG));
    case 'capacity':
      return parsedBy(parseCapacity, CAPACITY_MSG);
    case 'rate-list':
      return listOf(z.preprocess(numberFromString, z.number(RATE_MSG).positive(RATE_MSG).finite(RATE_MSG)));
    case 'workload':
      return orProblem(readWorkload);
    case 'slo':
      return orProblem((v) =>
        typeof v === 'string' ? parseServiceLevel(v) : 'expected a service level like ttft=2s,tok/s=20',
      );
  }
}

export interface OptionProblem {
  path: string; // the option's key, or where inside its value ("sampling.x")
  item?: { index: number; value: unknown }; // the one value of a list that is wrong (the 2nd of "1,x")
  message: string;
}

const ordinal = (n: number): string => {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  return `${n}${teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;
};

/** One problem as a person reads it, under the name the user gave (a flag or a key): `--concurrency: the 2nd value
 * "x": expected a number`, where the list's index ("[1]") made them count from zero. */
export function problemText(p: OptionProblem, name = p.path): string {
  const item = p.item ? `: the ${ordinal(p.item.index + 1)} value ${JSON.stringify(p.item.value)}` : '';
  return `${name}${item}: ${p.message}`;
}

// Validates every present key; returns parsed values and every problem with its path (zod's errors as data).
export function validateValues(
  specs: readonly OptionRow[],
  values: Record<string, unknown>,
): { values: Record<string, unknown>; problems: OptionProblem[] } {
  const out: Record<string, unknown> = {};
  const problems: OptionProblem[] = [];
  for (const o of specs) {
    const v = values[o.key];
    if (v === undefined) continue;
    const r = zodFor(o).safeParse(v);
    if (r.success) out[o.key] = r.data;
    else
      for (const issue of r.error.issues) {
        const [first, ...rest] = issue.path;
        const list = listFromString(v);
        // A list of one value reads as that value, a longer one says which ("the 2nd value").
        if (typeof first === 'number' && rest.length === 0 && Array.isArray(list))
          problems.push({
            path: o.key,
            ...(list.length > 1 ? { item: { index: first, value: list[first] } } : {}),
            message: issue.message,
          });
        else {
          const path = [
            o.key,
            ...issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)),
          ];
          problems.push({ path: path.join('').replace(/\.\[/g, '['), message: issue.message });
        }
      }
  }
  return { values: out, problems };
}
