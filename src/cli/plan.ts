import type { CliIo, CliStream } from './io.js';
import { terminalWidth } from '../report/terminal.js';
import type { Command } from 'commander';
import { normalizeBaseUrl, prefillRepeatsOf, resumeDirOf } from '../bench/settings.js';
import { OPTION_TABLE, OPTIONS, shapesPlan, type Options } from '../config/options.js';
import { mergeResume, resumeWarning } from '../config/stored.js';
import type { DecodeCell, RunResult } from '../results/schema.js';
import { withOptions, type Resolved } from '../config/resolve.js';
import { refuseAllTooLong, type Plan } from '../plan/plan.js';
import type { PlannedLevel, PlannedRow } from '../plan/levels.js';
import type { RunTraffic } from '../bench/traffic.js';
import { contextLabel, fmtEta, fmtEtaSplit, fmtS, kvBoundNote, wrapProse } from '../format/index.js';
import { countCells, plannedCountsText } from '../plan/counts.js';
import { estimateDuration, planLeft, type Estimate } from '../plan/estimate.js';
import { resolveApiKey } from './api-key.js';
import { urlCredentials } from '../target/probe.js';
import type { KvBound, TargetInfo } from '../target/types.js';
import {
  fitPrefillModel,
  prefillSamples,
  priorPrefillModel,
  type PrefillModel,
} from '../plan/prefill-model.js';
import { cellKey } from '../cell-rules.js';

// What the plan and its estimate read: the options whose own commands name plan (src/config/options.ts); the other
// run flags are accepted, so the verb can be swapped, and named in one line as not changing it.
const SHAPES_PLAN: ReadonlySet<string> = new Set(
  OPTIONS.filter((o) => shapesPlan(OPTION_TABLE[o.key])).map((o) => o.key),
);

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('plan')
    .description(
      'print the cells, their statuses (Over capacity) and an estimated duration; with --base-url it sends two short prompts to time prefill, nothing else',
    );
  const resolve = withOptions(cmd, 'plan');
  cmd.action(async (flags: Record<string, unknown>) => {
    const resolved = resolve(flags);
    const o = resolved.options;
    noteUnused(cmd, o, io);
    const resumeDir = resumeDirOf(o);
    if (resumeDir !== undefined) return planResumed(io, o, resolved.given, resumeDir);
    return planFresh(io, o);
  });
}

// The run flags given that do not change the plan, in one line, in --help's order; --resume alone reads the run
// folder from --out.
function noteUnused(cmd: Command, o: Options<'plan'>, io: CliIo): void {
  const unused = OPTIONS.filter(
    (x) =>
      cmd.getOptionValueSource(x.key) === 'cli' &&
      !SHAPES_PLAN.has(x.key) &&
      !(x.key === 'out' && o.resume === ''),
  ).map((x) => x.flag.split(' ')[0]!);
  if (unused.length)
    io.stderr.write(
      `note: ${unused.join(', ')} ${unused.length === 1 ? 'does' : 'do'} not change the plan (${unused.length === 1 ? 'it matters' : 'they matter'} when the run measures)\n`,
    );
}

// plan --resume: the stored run's options under the ones given, then its plan with what is done.
async function planResumed(
  io: CliIo,
  given: Options<'plan'>,
  givenKeys: Resolved<'plan'>['given'],
  resumeDir: string,
): Promise<void> {
  const [{ readPrevious }, { readTraffic }] = await Promise.all([
    import('../bench/phases/open-run.js'),
    import('../bench/traffic.js'),
  ]);
  const previous = readPrevious(resumeDir);
  const merged = mergeResume(previous, given, givenKeys);
  if (merged.ignored.length) io.stderr.write(`warning: ${resumeWarning(merged.ignored)}\n`);
  const o = merged.options;
  return printResumed(io, o, previous, resumeDir, await readTraffic(o));
}

// The server plan --base-url probed, and the key to reach it.
interface Online {
  baseUrl: string;
  apiKey: string | undefined;
  info: TargetInfo;
}

// The facts the plan reads: the flags', and what the flags do not say, the server's when --base-url names one.
interface PlanFacts {
  maxModelLen: number | undefined;
  kvCapacity: number | undefined;
  source: string;
  kv: KvNote;
  online?: Online;
}

async function planFacts(io: CliIo, o: Options<'plan'>): Promise<PlanFacts> {
  const flags: PlanFacts = {
    maxModelLen: o.maxModelLen,
    kvCapacity: o.kvCapacity,
    source: 'flags',
    kv: o.kvCapacity !== undefined ? { source: '--kv-capacity', bound: 'exact' } : {},
  };
  if (!o.baseUrl) return flags;
  const apiKey = resolveApiKey({ apiKey: o.apiKey, apiKeyFile: o.apiKeyFile, env: io.env });
  const { probeTarget } = await import('../target/probe.js');
  const info = await probeTarget({
    baseUrl: o.baseUrl, // as given: the probe strips credentials and says so
    ...(apiKey ? { apiKey } : {}),
    ...(o.model ? { model: o.model } : {}),
    ...(o.engine ? { engine: o.engine } : {}),
  });
  return {
    maxModelLen: flags.maxModelLen ?? info.maxModelLen,
    kvCapacity: flags.kvCapacity ?? info.kvCapacityTokens,
    source: `${info.engine.name} at ${o.baseUrl}`,
    kv:
      flags.kvCapacity === undefined && info.kvCapacityTokens !== undefined
        ? { source: info.kvCapacitySource, bound: info.kvCapacityBound ?? 'exact' }
        : flags.kv,
    online: { baseUrl: o.baseUrl, apiKey, info },
  };
}

// plan without --resume: the plan on the flags' facts and the server's; online, its prefill speed comes from two
// short prompts.
async function planFresh(io: CliIo, o: Options<'plan'>): Promise<void> {
  // Loaded on use, as the runner's other parts: a bad combination or file is said before the server is asked.
  const [{ readTraffic }, { planRun }] = await Promise.all([
    import('../bench/traffic.js'),
    import('../bench/phases/open-run.js'),
  ]);
  const traffic = await readTraffic(o);
  const { maxModelLen, kvCapacity, source, kv, online } = await planFacts(io, o);
  const { plan } = planRun(
    { ...o, maxModelLen, kvCapacity },
    {
      ...(kv.bound ? { kvCapacityBound: kv.bound } : {}),
      // The layout as the run will plan it (kvLayoutOf in planRun).
      ...(online
        ? {
            engine: online.info.engine,
            ...(online.info.kvLayout ? { kvLayout: online.info.kvLayout } : {}),
          }
        : {}),
    },
    undefined,
    o.kvCapacity,
    traffic,
  );
  refuseAllTooLong(plan, o.prefillContexts !== undefined); // as run refuses it, before any prompt
  // The twin recipe's estimate is the prior's (src/twin/for-twin.ts): nothing to time for it.
  if (o.forTwin) return printForTwin(io, o, plan);
  const prefill = online
    ? await onlinePrefill(online.baseUrl, online.apiKey, online.info, o.api, maxModelLen)
    : undefined;
  const est = estimateDuration(plan, {
    duration: o.duration,
    prefillRepeats: prefillRepeatsOf(o),
    repeats: o.repeats,
    ...prefill,
  });
  io.stdout.write(
    o.json
      ? planJson(plan, est, source, kv)
      : forTerminal(
          planTable(plan, est, source, kv, o.repeats, undefined, {
            warmup: o.warmup,
            duration: o.duration,
          }),
          io.stdout,
        ),
  );
}

// plan --for-twin: the twin recipe for the plan, as JSON or as the commands to run.
async function printForTwin(io: CliIo, o: Options<'plan'>, plan: Plan): Promise<void> {
  const { forTwinText, twinRecipe } = await import('../twin/for-twin.js');
  const twinOpts = {
    duration: o.duration,
    prefillRepeats: o.prefillRepeats,
    ...(o.baseUrl ? { baseUrl: normalizeBaseUrl(o.baseUrl) } : {}), // never its credentials
    ...twinKey(o),
  };
  io.stdout.write(
    o.json
      ? JSON.stringify(twinRecipe(plan, twinOpts), null, 2) + '\n'
      : forTerminal(forTwinText(plan, twinOpts), io.stdout),
  );
}

// How the printed twin commands get the key plan used (src/twin/for-twin.ts): a file they name too; a key given by
// flag or in the URL they must not print, so a note says how; one from the environment they find there too.
function twinKey(o: Options<'plan'>): { key?: { file: string } | 'not carried' } {
  if (o.apiKey) return { key: 'not carried' };
  if (o.apiKeyFile) return { key: { file: o.apiKeyFile } };
  return o.baseUrl && urlCredentials(o.baseUrl).length > 0 ? { key: 'not carried' } : {};
}

// Prose lines wrap to the terminal's width, 80 columns when piped; table rows (columns apart by two spaces or more)
// and the indented commands stay whole to be read and copied.
export function forTerminal(text: string, out: CliStream): string {
  return wrapProse(text, terminalWidth(out));
}

function planJson(plan: Plan, est: Estimate, source: string, kv: KvNote, done: DecodeCell[] = []): string {
  const out = {
    ...plan,
    kvCapacitySource: kv.source,
    kvCapacityBound: kv.bound,
    source,
    counts: countCells(plan, done),
    estimate: est,
  };
  return JSON.stringify(out, null, 2) + '\n';
}

// plan --resume DIR: the stored run's plan, its measured cells marked done, the estimate for what is left (its
// prefill speed fitted to the points it measured). Offline: the run's stored facts are what --resume uses.
async function printResumed(
  io: CliIo,
  o: Options<'plan'>,
  previous: RunResult,
  dir: string,
  traffic: RunTraffic,
): Promise<void> {
  const { planRun } = await import('../bench/phases/open-run.js');
  const { plan } = planRun(o, {}, previous, undefined, traffic);
  const done = previous.decode;
  const left = planLeft(plan, done, previous.prefill);
  const engine = previous.engine.name;
  const est = estimateDuration(left, {
    duration: o.duration,
    prefillRepeats: prefillRepeatsOf(o),
    repeats: o.repeats,
    engine,
    prefill: fitPrefillModel(prefillSamples(previous.prefill), priorPrefillModel(engine)),
  });
  const source = `run ${previous.runId} in ${dir}, to resume`;
  const kv = { source: previous.target.kvCapacitySource, bound: previous.target.kvCapacityBound };
  io.stdout.write(
    o.json
      ? planJson(plan, est, source, kv, done)
      : forTerminal(
          planTable(
            plan,
            est,
            source,
            kv,
            o.repeats,
            {
              done,
              donePrefill: previous.prefill.map((p) => p.contextTokens),
              doneLevels: (previous.levels ?? []).map((l) => l.key),
            },
            { warmup: o.warmup, duration: o.duration },
          ),
          io.stdout,
        ),
  );
}

async function onlinePrefill(
  baseUrl: string,
  apiKey: string | undefined,
  info: TargetInfo,
  api: 'chat' | 'completions',
  maxModelLen: number | undefined,
): Promise<{ engine: string; prefill: PrefillModel }> {
  const { probePrefillModel } = await import('../bench/prefill-probe.js');
  const p = await probePrefillModel({
    baseUrl: normalizeBaseUrl(baseUrl),
    ...(apiKey ? { apiKey } : {}),
    info,
    api,
    ...(maxModelLen !== undefined ? { maxModelLen } : {}),
  });
  return { engine: info.engine.name, prefill: p.model };
}

const SHORT: Record<string, string> = { run: 'run', 'Over capacity': 'over', 'Too long': 'long' };

const planMark = (cell: Plan['cells'][number]): string =>
  cell.capacityCheck ? 'check' : SHORT[cell.status]!;

// Where the KV capacity came from and how sure it is (docs/engines.md "KV capacity: where it comes from, and how
// sure").
interface KvNote {
  source?: string | undefined;
  bound?: KvBound | undefined;
}

// What the table's marks mean, for the marks it shows.
function legend(plan: Plan, resumed: boolean): string[] {
  const marks = new Set(plan.cells.map(planMark));
  const words = [
    ...(resumed ? ['done = measured already'] : []),
    ...(marks.has('over') ? ['over = Over capacity: N x (context + max output) > KV capacity, skipped'] : []),
    ...(marks.has('check') ? ['check = over the capacity figure, measured to see what the server does'] : []),
    ...(marks.has('long') ? ['long = the context does not fit the server, skipped'] : []),
  ];
  return words.length ? [words.join('; ')] : [];
}

// The seconds of a level's warm-up and window, as the plan's header says them.
interface LevelWindows {
  warmup: number;
  duration: number;
}

// A resumed run's measured cells, prefill points and load levels are marked done.
interface Resumed {
  done: readonly DecodeCell[];
  donePrefill: readonly number[];
  doneLevels?: readonly string[];
}

export function planTable(
  plan: Plan,
  est: Estimate,
  source: string,
  kv: KvNote = {},
  repeats = 1,
  resumed: Resumed = { done: [], donePrefill: [] },
  windows?: LevelWindows,
): string {
  const w = 6;
  const { done, donePrefill } = resumed;
  const measured = new Set(
    done.filter((c) => c.status !== 'Over capacity').map((c) => cellKey(c.contextTokens, c.concurrency)),
  );
  const mark = (cell: Plan['cells'][number]) =>
    measured.has(cellKey(cell.contextTokens, cell.concurrency)) ? 'done' : planMark(cell);
  const cells = plan.cells.length > 0;
  const head = `plan (${source}): max model length ${plan.maxModelLen ?? 'unknown'}, KV capacity ${plan.kvCapacityTokens ?? 'unknown'}${plan.kvCapacityTokens !== undefined && kv.source ? ` (${kv.source}${kvBoundNote(kv.bound)})` : ''}, max output ${plan.maxOutput}`;
  const matrix = cells
    ? [
        `prefill at ${plan.prefill.map((p) => contextLabel(p.contextTokens) + (donePrefill.includes(p.contextTokens) ? ' (done)' : p.status === 'run' ? '' : ' (too long)')).join(', ')}`,
        '',
        ['context'.padEnd(8), ...plan.concurrency.map((n) => String(n).padStart(w))].join(' '),
        ...plan.contexts.map((c) =>
          [
            contextLabel(c).padEnd(8),
            ...plan.concurrency.map((n) =>
              mark(plan.cells.find((x) => x.contextTokens === c && x.concurrency === n)!).padStart(w),
            ),
          ].join(' '),
        ),
        '',
        ...legend(plan, done.length > 0),
      ]
    : [];
  const levels = plan.levels ?? [];
  const counts = [
    ...(cells
      ? [
          `${plannedCountsText(countCells(plan, done))}${repeats > 1 ? `; each measured ${repeats} times` : ''}`,
        ]
      : []),
    ...(levels.length ? [levelCountsText(levels, resumed.doneLevels ?? [])] : []),
  ];
  const lines = [
    head,
    ...matrix,
    ...levelLines(plan, resumed.doneLevels ?? [], windows),
    `${counts.join('; ')}; estimated ${cells ? fmtEtaSplit(est.totalS, [['decode'], ['cold prefill', est.prefillS]]) : fmtEta(est.totalS)}`,
  ];
  return lines.join('\n') + '\n';
}

const rowName = (r: PlannedRow): string =>
  r.contextTokens !== undefined ? contextLabel(r.contextTokens) : r.row;

// What each row measures, in the run's order (docs/workloads.md "How a run orders its levels").
function rowLevelsText(r: PlannedRow, done: readonly string[]): string {
  const mark = (l: PlannedLevel) => (done.includes(l.key) ? ' (done)' : '');
  const parts: string[] = [];
  const closed = r.levels.filter((l) => l.load.model === 'closed');
  if (closed.length)
    parts.push(
      `${closed.map((l) => `x${l.load.model === 'closed' ? l.load.concurrency : ''}${mark(l)}`).join(', ')} users at once`,
    );
  const open = r.levels.filter((l) => l.load.model === 'open');
  const o = open[0]?.load;
  if (o?.model === 'open')
    parts.push(
      `${open.map((l) => `${l.load.model === 'open' ? l.load.rate : ''}${mark(l)}`).join(', ')} req/s (${o.arrival}${o.burstiness !== undefined ? ` ${o.burstiness}` : ''}${o.maxInFlight !== undefined ? `, at most ${o.maxInFlight} in flight` : ''})`,
    );
  const trace = r.levels.find((l) => l.load.model === 'trace');
  if (trace?.load.model === 'trace')
    parts.push(
      `the trace once, ${fmtS(trace.scheduleS)} of schedule at x${trace.load.timeScale}${mark(trace)}`,
    );
  if (r.search)
    parts.push(
      `the highest rate meeting the service level${r.search.start !== undefined ? ` from ${r.search.start} req/s` : ''}, at most ${r.search.windows} windows`,
    );
  return parts.join('; then ');
}

function levelLines(plan: Plan, done: readonly string[], windows?: LevelWindows): string[] {
  const rows = plan.levels ?? [];
  if (!rows.length) return [];
  const all = rows.flatMap((r) => r.levels);
  const has = (m: string) => all.some((l) => l.load.model === m);
  const how = windows
    ? [
        ...(has('closed') ? [`users at once: a ${windows.duration} s window each`] : []),
        ...(has('open') || rows.some((r) => r.search)
          ? [`rates: a ${windows.warmup} s warm-up then a ${windows.duration} s window each`]
          : []),
        ...(has('trace') ? [`the trace: its schedule, the first ${windows.warmup} s a warm-up`] : []),
      ]
    : [];
  const head = `load levels${how.length ? ` (${how.join('; ')})` : ''}:`;
  // Prose lines, not table rows: a workload's label is long, and wraps.
  return [head, ...rows.map((r) => `- ${rowName(r)}: ${rowLevelsText(r, done)}`), ''];
}

function levelCountsText(rows: readonly PlannedRow[], done: readonly string[]): string {
  const levels = rows.flatMap((r) => r.levels);
  const left = levels.filter((l) => !done.includes(l.key)).length;
  const searches = rows.filter((r) => r.search).length;
  const n = (k: number, one: string) => `${k} ${one}${k === 1 ? '' : 's'}`;
  return [
    ...(levels.length
      ? [`${n(levels.length, 'load level')}${left < levels.length ? ` (${levels.length - left} done)` : ''}`]
      : []),
    ...(searches
      ? [`${n(searches, 'rate search')} of at most ${rows.find((r) => r.search)!.search!.windows} windows`]
      : []),
  ].join(' and ');
}
