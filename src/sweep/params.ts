import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import { fsError } from '../fs-errors.js';
import { BenchError } from '../errors.js';
import { yamlProblem } from '../yaml-error.js';

// The configurations of a sweep (docs/sweep.md "Params files"): a list of configurations, named ones (a mapping
// of mappings), or one mapping; in each, a list value is expanded as a Cartesian product, the first key varying
// slowest. `env:` holds the environment variables of the server, expanded the same way.

export type Scalar = string | number | boolean;
export type ParamValue = Scalar | Scalar[]; // a list only for a run option that takes one (bench params)

export interface ParamSet {
  name: string; // "np=4 c=64K", or the given name with the varying values after it
  params: Record<string, ParamValue>; // in the file's key order
  env: Record<string, string>;
}

const ScalarZ = z.union([z.string(), z.number(), z.boolean()], 'expected a number, text or true/false');
const Value = z.union([ScalarZ, z.array(ScalarZ).min(1, 'expected at least one value')], {
  error: 'expected a number, text or true/false, or a list of them',
});
// A run option that takes a list (contexts): a list is one value, a list of lists the values to sweep.
const ListValue = z.union(
  [ScalarZ, z.array(ScalarZ).min(1), z.array(z.array(ScalarZ).min(1)).min(1, 'expected at least one value')],
  { error: 'expected a value, a list, or a list of lists (one list per configuration)' },
);

export interface ExpandOptions {
  env?: boolean; // an `env:` mapping is allowed (serve params)
  isList?: (key: string) => boolean; // keys whose value is itself a list (bench params: contexts...)
}

const configurationSchema = (o: ExpandOptions) =>
  z.record(z.string().min(1), z.unknown(), 'expected a mapping of names to values').superRefine((c, ctx) => {
    for (const [k, v] of Object.entries(c)) {
      const schema =
        k === 'env' && o.env
          ? z.record(z.string().regex(/^[A-Za-z_]\w*$/), Value)
          : o.isList?.(k)
            ? ListValue
            : Value;
      const r = schema.safeParse(v);
      if (!r.success)
        for (const issue of r.error.issues)
          ctx.addIssue({
            code: 'custom',
            path: [k, ...issue.path],
            message:
              k === 'env' && issue.code === 'invalid_key'
                ? 'expected environment variable names (letters, digits, _)'
                : issue.message,
          });
    }
  });

type Raw = Record<string, unknown>;

const isMapping = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

// Which shape the file has: named configurations when every value of a mapping is a mapping.
function configurations(
  data: unknown,
  o: ExpandOptions,
): Array<{ name?: string; at: Array<string | number>; raw: unknown }> {
  if (Array.isArray(data)) return data.map((raw, i) => ({ at: [i], raw }));
  const named =
    isMapping(data) &&
    Object.keys(data).length > 0 &&
    Object.values(data).every(isMapping) &&
    !(o.env && 'env' in data); // `env:` alone is one configuration's environment
  if (named) return Object.entries(data).map(([name, raw]) => ({ name, at: [name], raw }));
  return [{ at: [], raw: data }];
}

const pathText = (at: ReadonlyArray<PropertyKey>): string =>
  at
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');

export const shownValue = (v: ParamValue): string => (Array.isArray(v) ? v.join(',') : String(v));

// Every combination of the list values, the first key varying slowest.
export function product<T>(axes: ReadonlyArray<readonly [string, readonly T[]]>): Array<Array<[string, T]>> {
  let out: Array<Array<[string, T]>> = [[]];
  for (const [key, values] of axes)
    out = out.flatMap((prefix) => values.map((v) => [...prefix, [key, v] as [string, T]]));
  return out;
}

// The values a key sweeps over: a list's items, or the one value (a list of lists for a list option).
function valuesOf(v: unknown, isList: boolean): ParamValue[] {
  if (!Array.isArray(v)) return [v as Scalar];
  if (!isList) return v as Scalar[];
  return v.every(Array.isArray) ? (v as Scalar[][]) : [v as Scalar[]];
}

// One configuration of the file as its expanded parameter sets.
function expand(name: string | undefined, raw: Raw, o: ExpandOptions): ParamSet[] {
  const env = o.env && isMapping(raw.env) ? raw.env : {};
  const axes: Array<readonly [string, ParamValue[]]> = [
    ...Object.entries(raw)
      .filter(([k]) => !(o.env && k === 'env'))
      .map(([k, v]) => [k, valuesOf(v, o.isList?.(k) ?? false)] as const),
    ...Object.entries(env).map(([k, v]) => [`env.${k}`, valuesOf(v, false)] as const),
  ];
  const varying = new Set(axes.filter(([, vs]) => vs.length > 1).map(([k]) => k));
  return product(axes).map((combo) => {
    const params: Record<string, ParamValue> = {};
    const envOut: Record<string, string> = {};
    for (const [k, v] of combo)
      if (k.startsWith('env.')) envOut[k.slice(4)] = shownValue(v);
      else params[k] = v;
    const label = (keys: (k: string) => boolean) =>
      combo
        .filter(([k]) => keys(k))
        .map(([k, v]) => `${k.replace(/^env\./, '')}=${shownValue(v)}`)
        .join(' ');
    const setName =
      name === undefined
        ? label(() => true) || 'default'
        : [name, label((k) => varying.has(k))].filter(Boolean).join(' ');
    return { name: setName, params, env: envOut };
  });
}

// A params file's data (YAML or JSON, parsed) as its parameter sets; `what` names the file in errors.
export function expandParams(data: unknown, what: string, o: ExpandOptions = {}): ParamSet[] {
  if (data === null || data === undefined || (Array.isArray(data) && data.length === 0))
    throw new BenchError('CONFIG_INVALID', `${what}: no configuration in the file.`, {
      hint: 'Write a list of configurations, named ones, or one mapping of flags to values (docs/sweep.md).',
    });
  const out: ParamSet[] = [];
  for (const c of configurations(data, o)) {
    const r = configurationSchema(o).safeParse(c.raw);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      const where = pathText([...c.at, ...issue.path]);
      throw new BenchError('CONFIG_INVALID', `${what}: ${where ? `${where}: ` : ''}${issue.message}.`, {
        hint: 'See docs/sweep.md "Params files" for the shapes a params file takes.',
      });
    }
    out.push(...expand(c.name, r.data, o));
  }
  const seen = new Set<string>();
  for (const p of out) {
    if (seen.has(p.name))
      throw new BenchError('CONFIG_INVALID', `${what}: the configuration "${p.name}" appears twice.`, {
        hint: 'Give every configuration its own values or name.',
      });
    seen.add(p.name);
  }
  return out;
}

// A params file read and parsed (YAML, of which JSON is a part); one coded line when it cannot be.
export function readParamsFile(path: string, flag: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw fsError('CONFIG_INVALID', `cannot read ${flag} ${path}`, e);
  }
  try {
    return parseYaml(text) as unknown;
  } catch (e) {
    throw new BenchError('CONFIG_INVALID', `${flag} ${path} is not valid YAML or JSON: ${yamlProblem(e)}`);
  }
}
