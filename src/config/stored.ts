import type { RunConfig, RunResult } from '../results/schema.js';
import {
  defaultOf,
  OPTIONS,
  optionsFor,
  type ConfigKey,
  type OptionKey,
  type OptionRow,
  type Options,
  type TrafficConfigKey,
} from './options.js';

// The result's config section holds the table's 'config' options under their own names, plus `sampling` (the
// fields sent, under their API names) and the traffic (config.workload and config.load: the options whose result
// path is inside them, built by src/config/traffic.ts). A missing or extra option on either side fails to compile
// here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const configMatchesTable: Same<ConfigKey, Exclude<keyof RunConfig, 'sampling' | TrafficConfigKey>> = true;
const configTypesMatch = (
  o: Required<Pick<Options<'run'>, ConfigKey>>,
): Required<Omit<RunConfig, 'sampling' | TrafficConfigKey>> => o;
void configMatchesTable;
void configTypesMatch;

type RunOptions = Options<'run'>;

function readPath(root: unknown, path: string): unknown {
  let at: unknown = root;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

// Where one run option sits in a result; undefined when it is not stored there.
export function storedValue(r: RunResult, o: OptionRow): unknown {
  if (o.result === undefined) return undefined;
  if (o.result === 'config') return (r.config as Record<string, unknown>)[o.key];
  if (o.result === 'sampling') return r.config.sampling[o.wire ?? o.key];
  return readPath(r, o.result);
}

// The sampling fields sent with every request, under their API names: only those given.
export function samplingOf(o: Partial<RunOptions>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of OPTIONS)
    if (spec.result === 'sampling') {
      const v = (o as Record<string, unknown>)[spec.key];
      if (v !== undefined) out[spec.wire ?? spec.key] = v;
    }
  return out;
}

// The result's config section from a run's options, in the table's order: each 'config' option given, and the
// sampling fields where the first of them stands. storedValue (above) reads it back.
export function configSection(o: Partial<RunOptions>): RunConfig {
  const out: Record<string, unknown> = {};
  for (const spec of optionsFor('run')) {
    const v = (o as Record<string, unknown>)[spec.key];
    if (spec.result === 'sampling') out.sampling ??= samplingOf(o);
    else if (spec.result === 'config' && v !== undefined) out[spec.key] = v;
  }
  // The run's options have the table's types, which match RunConfig's (checked above).
  return out as RunConfig;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const shown = (v: unknown): string => (Array.isArray(v) ? v.join(',') : String(v));

export interface ResumeMerge<T> {
  options: T;
  ignored: string[]; // e.g. "--duration 9 (the run's 3)"
}

// --resume, for the CLI and a program alike: the stored run fixes what it measured (prompts, lists, windows,
// metadata), so the stored value wins over the options, except where the table says otherwise (onResume). Options
// `given` with another value than the stored one are named, so the user knows they had no effect.
export function mergeResume<T extends Partial<RunOptions>>(
  stored: RunResult,
  options: T,
  given: ReadonlySet<OptionKey> = new Set(),
): ResumeMerge<T> {
  const merged: Record<string, unknown> = { ...options };
  const ignored: string[] = [];
  for (const o of optionsFor('run')) {
    if (o.result === undefined || o.onResume === 'hint') continue;
    const v = storedValue(stored, o);
    const mine = merged[o.key];
    if (o.onResume === 'flag') {
      if (mine === undefined && v !== undefined) merged[o.key] = v;
      continue;
    }
    // A result from before this option was stored (workers, repeats, the timeouts) keeps the flag or default.
    if (v === undefined && defaultOf(o, 'run') !== undefined) continue;
    if (given.has(o.key) && mine !== undefined && !same(mine, v))
      ignored.push(
        `${o.flag.split(' ')[0]} ${shown(mine)} (the run's ${v === undefined ? 'none' : shown(v)})`,
      );
    if (v === undefined) delete merged[o.key];
    else merged[o.key] = v;
  }
  // Every stored value was validated by the result schema, whose config types match the table (above).
  return { options: merged as T, ignored };
}

export const resumeWarning = (ignored: readonly string[]): string =>
  `--resume continues the stored run with its own settings; ignored: ${ignored.join(', ')}`;
