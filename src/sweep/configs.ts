import { problemText, validateValues } from '../config/schema.js';
import { optionsFor, type OptionRow } from '../config/options.js';
import { BenchError } from '../errors.js';
import { suggest } from '../config/suggest.js';
import type { SweepRun, SweepServer } from '../results/sweep-schema.js';
import { applyLinks, type Link, type Linked } from './link-vars.js';
import { expandParams, type ParamSet, type ParamValue } from './params.js';

// The sweep as servers (one per serve configuration) and runs (each server × each bench configuration), with
// their folders and what --link-vars sets in each. Pure: the files are read by the caller.

// Run options a bench configuration may set: what the sweep itself decides (the server, the folders, the
// launch command) is not among them, nor secrets.
const NOT_IN_BENCH = new Set(['baseUrl', 'out', 'runId', 'resume', 'launchCommand', 'quiet', 'config']);
export const benchOptions = (): OptionRow[] =>
  optionsFor('run').filter((o) => o.configFile === true && !NOT_IN_BENCH.has(o.key));

const LIST_KINDS = new Set(['tokens-list', 'int-list', 'cell-list']);

// max-output, max_output and maxOutput are one key.
const camel = (k: string): string => k.replace(/[-_]+([a-z])/g, (_m, c: string) => c.toUpperCase());

export interface BenchSet {
  name: string;
  values: Record<string, unknown>; // run options, parsed as the flags are
  raw: Record<string, ParamValue>;
}

export function expandBench(data: unknown, what: string): BenchSet[] {
  const specs = benchOptions();
  const byKey = new Map(specs.map((o) => [o.key as string, o]));
  const sets = expandParams(data, what, {
    isList: (k) => LIST_KINDS.has(byKey.get(camel(k))?.kind ?? ''),
  });
  return sets.map((s) => {
    const given: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s.params)) {
      const key = camel(k);
      if (!byKey.has(key)) {
        const hint = suggest(key, [...byKey.keys()]);
        throw new BenchError(
          'CONFIG_INVALID',
          `${what}: ${k}: not a run option a bench configuration can set${hint ? ` (did you mean ${hint}?)` : ''}.`,
          { hint: 'Bench params take the run options of docs/cli.md (contexts, maxOutput, duration...).' },
        );
      }
      given[key] = v;
    }
    const r = validateValues(specs, given);
    if (r.problems.length > 0) {
      const p = r.problems[0]!;
      throw new BenchError('CONFIG_INVALID', `${what}: configuration "${s.name}": ${problemText(p)}.`);
    }
    return { name: s.name, values: r.values, raw: s.params };
  });
}

// "01-np=4_c=64K": ordered, readable, safe as a folder name everywhere.
export function folderName(index: number, name: string): string {
  const slug =
    name
      .replace(/[^\w=.,+-]+/g, '_')
      .replace(/_+/g, '_')
      .replace(/^_|_$/g, '')
      .slice(0, 60) || 'default';
  return `${String(index + 1).padStart(2, '0')}-${slug}`;
}

export interface SweepLayout {
  servers: SweepServer[];
  runs: SweepRun[];
}

export function layoutSweep(
  serveSets: readonly ParamSet[],
  benchSets: readonly BenchSet[],
  links: readonly Link[],
  base: { concurrency?: readonly number[]; maxModelLen?: number },
): SweepLayout {
  const servers: SweepServer[] = [];
  const runs: SweepRun[] = [];
  serveSets.forEach((set, i) => {
    const key = folderName(i, set.name);
    servers.push({ key, name: set.name, params: set.params, env: set.env, log: `${key}/server.log` });
    const variants: Array<BenchSet | undefined> = benchSets.length ? [...benchSets] : [undefined];
    variants.forEach((b, j) => {
      const linked = linkedFor(links, set, base, b);
      runs.push({
        key: b ? `${key}/${folderName(j, b.name)}` : key,
        name: b ? `${set.name} · ${b.name}` : set.name,
        server: key,
        ...(b ? { bench: b.raw } : {}),
        linked: linked.notes,
        status: 'pending',
      });
    });
  });
  return { servers, runs };
}

export function linkedFor(
  links: readonly Link[],
  set: ParamSet,
  base: { concurrency?: readonly number[]; maxModelLen?: number },
  bench: BenchSet | undefined,
): Linked {
  const b = bench?.values as { concurrency?: number[]; maxModelLen?: number } | undefined;
  const concurrency = b?.concurrency ?? base.concurrency;
  const maxModelLen = b?.maxModelLen ?? base.maxModelLen;
  return applyLinks(links, set, {
    ...(concurrency ? { concurrency } : {}),
    ...(maxModelLen !== undefined ? { maxModelLen } : {}),
  });
}

// The run options of one run: the sweep's, then its bench configuration's, then what its links set.
export function runOptionsFor<T extends object>(base: T, bench: BenchSet | undefined, linked: Linked): T {
  const { notes: _notes, ...set } = linked;
  return { ...base, ...(bench?.values ?? {}), ...set };
}
