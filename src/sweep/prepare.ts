import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { newRunId, type RunSettings } from '../bench/settings.js';
import { optionsFor, type Options } from '../config/options.js';
import { BenchError } from '../errors.js';
import { cliCommand } from '../invocation.js';
import { readSweepFile } from '../results/sweep-io.js';
import {
  SWEEP_FILE,
  SWEEP_SCHEMA_ID,
  SWEEP_SCHEMA_VERSION,
  type SweepFile,
  type SweepRun,
} from '../results/sweep-schema.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { checkTemplate, redactTemplate } from './command.js';
import { expandBench, layoutSweep, linkedFor, runOptionsFor, type BenchSet } from './configs.js';
import { checkLinks, parseLinkVars, type Link } from './link-vars.js';
import { expandParams, readParamsFile, type ParamSet } from './params.js';
import type { SweepPlan } from './sweep.js';

// From the options to a sweep ready to start: the files read and expanded, the links checked, the folder and
// its sweep.json chosen (new, or read back for --resume, whose stored settings win).

type SweepOptions = Options<'sweep'>;
type RunOptions = Options<'run'>;

// What defines the sweep's configurations; kept in sweep.json so --resume needs no flag again.
interface Sources {
  serveCmd: string;
  serveParams: string;
  benchParams?: string | undefined;
  linkVars?: string | undefined;
}

export interface Expanded {
  serveSets: ParamSet[];
  benchSets: BenchSet[];
  links: Link[];
}

export function expandSources(src: Sources): Expanded {
  const serveSets = expandParams(readParamsFile(src.serveParams, '--serve-params'), src.serveParams, {
    env: true,
  });
  const benchSets = src.benchParams
    ? expandBench(readParamsFile(src.benchParams, '--bench-params'), src.benchParams)
    : [];
  checkTemplate(src.serveCmd, serveSets);
  const links = src.linkVars ? parseLinkVars(src.linkVars) : [];
  checkLinks(links, serveSets);
  return { serveSets, benchSets, links };
}

// The run options a sweep keeps for its runs: no secret, nothing only this invocation means.
const NOT_STORED = new Set([
  'apiKey',
  'apiKeyFile',
  'config',
  'resume',
  'dryRun',
  'quiet',
  'serveCmd',
  'serveParams',
  'benchParams',
  'linkVars',
]);
const storedOptions = (o: SweepOptions): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([k, v]) => !NOT_STORED.has(k) && v !== undefined));

export interface PreparedSweep {
  dir: string;
  file: SweepFile;
  expanded: Expanded;
  options: SweepOptions; // with a resumed sweep's stored options
  resumed: boolean;
  ignored: string[]; // flags a resumed sweep does not take: "--duration 9 (the sweep's 3)"
}

const sourcesOf = (o: SweepOptions): Sources => {
  if (o.serveCmd === undefined || o.serveParams === undefined)
    throw new BenchError('USAGE', 'sweep needs --serve-cmd and --serve-params (or --resume SWEEP_DIR).', {
      hint: `e.g. --serve-cmd "${cliCommand('sim')} --port {port}" --serve-params sweep.yaml (docs/sweep.md).`,
    });
  return {
    serveCmd: o.serveCmd,
    serveParams: o.serveParams,
    benchParams: o.benchParams,
    linkVars: o.linkVars,
  };
};

export function prepareSweep(o: SweepOptions, given: ReadonlySet<string>, now: string): PreparedSweep {
  return o.resume !== undefined ? resumeSweep(o, given) : newSweep(o, now);
}

function newSweep(o: SweepOptions, now: string): PreparedSweep {
  const src = sourcesOf(o);
  const expanded = expandSources(src);
  const sweepId = o.runId ?? `sweep-${newRunId()}`;
  const dir = join(o.out, sweepId);
  if (existsSync(join(dir, SWEEP_FILE)))
    throw new BenchError('USAGE', `${dir} already holds a sweep.`, {
      hint: `Continue it with \`${cliCommand('sweep', '--resume', dir)}\`, or pick another --run-id.`,
    });
  const layout = layoutSweep(expanded.serveSets, expanded.benchSets, expanded.links, o);
  const file: SweepFile = {
    schema: SWEEP_SCHEMA_ID,
    version: SWEEP_SCHEMA_VERSION,
    sweepId,
    ...(o.title ? { title: o.title } : {}),
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    status: 'running',
    startedAt: now,
    serveCmd: redactTemplate(src.serveCmd),
    serveParams: resolve(src.serveParams),
    ...(src.benchParams ? { benchParams: resolve(src.benchParams) } : {}),
    ...(src.linkVars ? { linkVars: src.linkVars } : {}),
    options: storedOptions(o),
    servers: layout.servers,
    runs: layout.runs,
  };
  return { dir, file, expanded, options: o, resumed: false, ignored: [] };
}

const shown = (v: unknown) => (Array.isArray(v) ? v.join(',') : String(v));
const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function resumeSweep(o: SweepOptions, given: ReadonlySet<string>): PreparedSweep {
  const dir = o.resume === '' ? o.out : o.resume!;
  const file = readSweepFile(dir);
  if (file.status === 'complete' && file.runs.every((r) => r.status === 'complete'))
    throw new BenchError('USAGE', `the sweep in ${dir} is already complete; nothing to resume.`);
  const src: Sources = {
    serveCmd: o.serveCmd ?? file.serveCmd,
    serveParams: o.serveParams ?? file.serveParams,
    benchParams: o.benchParams ?? file.benchParams,
    linkVars: o.linkVars ?? file.linkVars,
  };
  if (o.serveCmd === undefined && file.serveCmd.includes('<redacted>'))
    throw new BenchError('USAGE', `the stored --serve-cmd of ${dir} holds a redacted secret.`, {
      hint: 'Pass --serve-cmd again with --resume (or put the secret in the environment).',
    });
  const expanded = expandSources(src);
  const ignored: string[] = [];
  const merged: Record<string, unknown> = { ...o };
  for (const [k, v] of Object.entries(file.options)) {
    if (given.has(k) && shown(merged[k]) !== shown(v))
      ignored.push(`--${kebab(k)} ${shown(merged[k])} (the sweep's ${shown(v)})`);
    merged[k] = v;
  }
  const options = merged as SweepOptions;
  const layout = layoutSweep(expanded.serveSets, expanded.benchSets, expanded.links, options);
  const names = (runs: readonly SweepRun[]) => runs.map((r) => `${r.key}`).join('\n');
  if (names(layout.runs) !== names(file.runs))
    throw new BenchError(
      'RESUME_MISMATCH',
      `the params files now give other configurations than the sweep in ${dir} measured.`,
      { hint: 'Resume with the same --serve-params and --bench-params, or start a new sweep.' },
    );
  return { dir, file, expanded, options, resumed: true, ignored };
}

// The run options of the sweep's options: what `run` takes, nothing of the sweep's own.
const RUN_KEYS = new Set<string>(optionsFor('run').map((x) => x.key));
const runPart = (o: SweepOptions): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([k]) => RUN_KEYS.has(k)));

// The loop's input: the commands' values by server, the bench configurations by run, and how a run's options
// become the runner's settings (the CLI's toRunSettings).
export function sweepPlan(
  p: PreparedSweep,
  toSettings: (o: RunOptions) => RunSettings,
  apiKey: string | undefined,
): SweepPlan {
  const { serveSets, benchSets, links } = p.expanded;
  const serveBy = new Map(p.file.servers.map((s, i) => [s.key, serveSets[i]!]));
  const benchBy = new Map<string, BenchSet | undefined>();
  for (const s of p.file.servers) {
    const runs = p.file.runs.filter((r) => r.server === s.key);
    runs.forEach((r, j) => benchBy.set(r.key, benchSets.length ? benchSets[j] : undefined));
  }
  const o = p.options;
  return {
    dir: p.dir,
    file: p.file,
    template: o.serveCmd ?? p.file.serveCmd,
    serveSets: serveBy,
    benchSets: benchBy,
    apiKey,
    readyTimeoutS: o.serverReadyTimeout,
    stopTimeoutS: o.serverStopTimeout,
    settingsFor: (run, bench, at) => {
      const linked = linkedFor(links, serveBy.get(run.server)!, o, bench);
      const dir = join(p.dir, run.key);
      const title = [o.title, run.name].filter(Boolean).join(' · ');
      const runOptions = {
        ...runOptionsFor(runPart(o), bench, linked),
        baseUrl: `http://127.0.0.1:${at.port}/v1`,
        launchCommand: at.command,
        out: dirname(dir),
        runId: basename(dir),
        title,
      } as unknown as RunOptions;
      const { resume: _r, ...rest } = runOptions;
      return toSettings(rest as RunOptions);
    },
  };
}
