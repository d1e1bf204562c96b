import { streamRequest } from '../client/stream.js';
import { cliCommand } from '../invocation.js';
import { isoTime, realClock, type Clock } from '../clock.js';
import { withDefaults } from '../config/options.js';
import { samplingOf } from '../config/stored.js';
import { ClientMonitor } from '../client/self-check.js';
import { BenchError, isBenchError } from '../errors.js';
import { RunEndedWithError } from './ended-with-error.js';
import { estimateDuration, planLeft } from '../plan/estimate.js';
import { countCells, type CellCounts } from '../plan/counts.js';
import { fitPrefillModel, prefillSamples, priorPrefillModel } from '../plan/prefill-model.js';
import { capacityRuleHeld } from '../plan/capacity.js';
import {
  CONNECT_PROMPT_TOKENS,
  raisedCapacity,
  runContexts,
  tooLongNote,
  type Plan,
  type PlannedCell,
} from '../plan/plan.js';
import { silentProgress, type ProgressSink, type ProgressStart } from '../progress/sink.js';
import type { DecodeCell, RunResult } from '../results/schema.js';
import { registerSecret } from '../secrets.js';
import { referenceFromCells } from '../stats/queue.js';
import { createMetricsSampler, type MetricsSampler } from '../target/metrics-sampler.js';
import { probeTarget } from '../target/probe.js';
import type { TargetInfo } from '../target/types.js';
import { type StreamFn } from './drive/context.js';
import type { CellMonitor } from './drive/runner.js';
import { fatalCode, fatalError } from './drive/fatal.js';
import type { Checkpoint } from './phases/checkpoint.js';
import { measureRow, type LevelKeep, type SearchLoad } from './phases/measure-levels.js';
import { openLevelsOf } from './traffic.js';
import type { LevelEnv } from './phases/measure-level.js';
import { preparePromptBank, type PromptBankSnapshot } from '../prompts/index.js';
import { DEFAULT_SERVICE_LEVEL } from '../stats/slo.js';
import type { CellEnv } from './phases/measure-cell.js';
import { measureRepeats } from './phases/measure-repeats.js';
import { measurePrefillPoint } from './phases/measure-prefill.js';
import { openRun, type OpenedRun } from './phases/open-run.js';
import { TooLong } from './phases/too-long.js';
import { createPromptSource } from './prompt-source.js';
import { Sender, type Sent } from './drive/sender.js';
import {
  prefillRepeatsOf,
  RENAMED_RUN_KEYS,
  RUN_INPUT_KEYS,
  type RunInput,
  type RunSettings,
} from './settings.js';
import { checkOptions, keysOf } from '../option-keys.js';
import { emptyCell } from '../results/empty-cell.js';
import { failedRequests } from '../cell-rules.js';
import type { AgentHub } from './drive/agents/hub.js';

export interface BenchRunDeps {
  clock?: Clock;
  stream?: StreamFn; // default: the undici client (src/client)
  probe?: typeof probeTarget;
  createSampler?: (
    info: TargetInfo,
    baseUrl: string,
    apiKey: string | undefined,
    intervalMs: number,
  ) => MetricsSampler | undefined;
  createPrompts?: typeof createPromptSource;
  progress?: ProgressSink;
  // The client's self-check over each window (default: src/client/self-check.ts ClientMonitor; a virtual-time
  // run passes one that measures nothing, since its windows are not real time).
  clientMonitor?: (threads: number) => CellMonitor | undefined;
  // Reports beside the result (the CLI passes src/cli/write-reports.ts); none when absent.
  writeReports?: (dir: string, result: RunResult) => Promise<string[]>;
  // The agents of a run spread over several machines (docs/distributed.md): each decode cell's slots are shared
  // with them; the run itself (probe, plan, prefill, statuses) stays here, on agent 0.
  agents?: AgentHub;
}

const DEPS_KEYS = keysOf<BenchRunDeps>({
  clock: true,
  stream: true,
  probe: true,
  createSampler: true,
  createPrompts: true,
  progress: true,
  clientMonitor: true,
  writeReports: true,
  agents: true,
});

// A program's settings by name (src/option-keys.ts); `hardware` was GPU overrides once and is a complete
// description now, so one without its source is the old meaning.
function checkRunInput(settings: RunInput): void {
  checkOptions('BenchRun', settings, RUN_INPUT_KEYS, RENAMED_RUN_KEYS);
  const hw: unknown = settings.hardware;
  if (hw !== undefined && (typeof hw !== 'object' || hw === null || !('source' in hw)))
    throw new BenchError(
      'USAGE',
      'BenchRun: hardware is a complete description with its source (as demo passes for the sim); GPU facts for the report are the settings gpuName, gpuCount and gpuMemoryGb now.',
    );
}

// What an interrupt does to the cell in progress (the CLI says it before it happens).
export type InterruptEffect = { finishing: string } | { aborting: true };

export interface RunOutcome {
  dir: string;
  resultPath: string;
  result: RunResult;
  reports: string[];
  counts: CellCounts; // measured / checked / skipped, as the plan line and the live view count them
}

// One benchmark run as phases: open (resume, probe, plan, folder) -> connect -> for each context a prefill point
// and its decode cells, each saved to the checkpoint as it finishes -> finish. No global state: start() may be
// called again for a new run (a fresh runId unless one was given).
export class BenchRun {
  private stopper = new AbortController();
  private running = false;
  private closedWindow: string | undefined; // a cell whose window closed whole: an interrupt keeps it
  private readonly settings: RunSettings;

  constructor(
    settings: RunInput,
    private readonly deps: BenchRunDeps = {},
  ) {
    checkRunInput(settings);
    checkOptions('BenchRun (deps)', deps, DEPS_KEYS);
    this.settings = withDefaults<'run', RunSettings>('run', settings);
  }

  // Ctrl-C: abort what is in flight, keep every finished cell, mark the result interrupted. Says what happens to the
  // cell in progress: aborted (measured again on resume), or, its window closed already, finished and kept.
  interrupt(): InterruptEffect {
    this.stopper.abort();
    return this.closedWindow ? { finishing: this.closedWindow } : { aborting: true };
  }

  get interrupted(): boolean {
    return this.stopper.signal.aborted;
  }

  async start(): Promise<RunOutcome> {
    if (this.running) throw new BenchError('USAGE', 'this run is already in progress');
    this.running = true;
    this.stopper = new AbortController();
    this.closedWindow = undefined;
    try {
      return await this.execute();
    } finally {
      this.running = false;
    }
  }

  private async execute(): Promise<RunOutcome> {
    const clock = this.deps.clock ?? realClock;
    const progress = this.deps.progress ?? silentProgress;
    registerSecret(this.settings.apiKey);
    const run = await openRun(this.settings, this.deps.probe ?? probeTarget, () => isoTime(clock));
    const cp = run.checkpoint;
    try {
      const env = await this.cellEnv(run, clock, progress);
      announce(run, progress);
      const tooLong = new TooLong(tooLongNote(run.plan)?.error);
      try {
        cp.log(await connect(env.sender, env.stop, progress));
        await measureContexts(run, env, tooLong, progress);
      } catch (e) {
        throw failed(cp, e, clock);
      }
      return await this.finish(run, clock, tooLong);
    } finally {
      // The agents go home only after a complete run; otherwise they wait for it to be resumed.
      this.deps.agents?.finish(cp.result.status);
    }
  }

  private async cellEnv(run: OpenedRun, clock: Clock, progress: ProgressSink): Promise<CellEnv> {
    const s = run.settings;
    const apiKey = s.apiKey ? { apiKey: s.apiKey } : {};
    // Without continuous usage the per-chunk split is an estimate; the server's tokenizer can pin it after a cell.
    const count = run.info.tokenize;
    const tokenize =
      count && !run.info.extensions.continuousUsage
        ? (text: string) => count(text, 'completions')
        : undefined; // the text alone, no template
    const prompts = await (this.deps.createPrompts ?? createPromptSource)({
      runId: run.runId,
      seed: s.seed,
      baseUrl: run.baseUrl,
      ...apiKey,
      info: run.info,
      api: s.api,
      onWarning: (w) => {
        run.checkpoint.warn(w);
        progress.warn(w);
      },
    });
    const sender = new Sender(
      {
        baseUrl: run.baseUrl,
        ...apiKey,
        api: s.api,
        ignoreEos: s.ignoreEos,
        sampling: samplingOf(s),
        idPrefix: `${run.runId}-${Math.random().toString(36).slice(2, 6)}`,
        ...(tokenize ? { keepChunkTexts: true } : {}),
        httpClient: s.httpClient,
      },
      run.info,
      prompts,
      this.deps.stream ?? streamRequest,
      clock,
    );
    const agents = this.deps.agents;
    if (agents) {
      const { cfg, info } = sender.workerParts();
      const { apiKey: _key, ...shared } = cfg; // each agent reads its own key
      agents.open({ runId: run.runId, cfg: shared, info });
    }
    const makeSampler = this.deps.createSampler ?? defaultSampler;
    let bank: Promise<PromptBankSnapshot> | undefined;
    // The prompt bank is measured once a run, when its first load level needs it (docs/workloads.md "Prompts").
    const bankOnce = () =>
      (bank ??= preparePromptBank({
        runId: run.runId,
        seed: s.seed,
        baseUrl: run.baseUrl,
        ...apiKey,
        model: run.info.model,
        api: s.api,
        ...(count ? { tokenize: (text: string) => count(text, s.api) } : {}),
        ...(run.info.tokenizeCoversTemplate !== undefined
          ? { tokenizeCoversTemplate: run.info.tokenizeCoversTemplate }
          : {}),
        onWarning: (w) => {
          run.checkpoint.warn(w);
          progress.warn(w);
        },
      }));
    return {
      bank: bankOnce,
      monitor: this.deps.clientMonitor ?? ((threads) => new ClientMonitor(threads)),
      ...(tokenize ? { tokenize } : {}),
      sender,
      clock,
      sampler: makeSampler(run.info, run.baseUrl, s.apiKey, s.metricsInterval * 1000),
      stop: this.stopper.signal,
      settings: s,
      dir: run.checkpoint.dir,
      phase: (label, keeping) => {
        this.closedWindow = keeping;
        progress.phase(label);
      },
      ...(agents ? { agents } : {}),
    };
  }

  private async finish(run: OpenedRun, clock: Clock, tooLong: TooLong): Promise<RunOutcome> {
    const cp = run.checkpoint;
    const { result, dir, resultPath } = cp;
    result.finishedAt = isoTime(clock);
    if (this.stopper.signal.aborted) {
      result.status = 'interrupted';
      cp.save();
      return { dir, resultPath, result, reports: [], counts: countCells(run.plan, cp.cells) };
    }
    result.status = 'complete';
    if (tooLong.first) result.error = { code: tooLong.first.code, message: tooLong.first.message };
    // Reports before the complete status reaches disk: a kill while they are written leaves a run that --resume
    // finishes (a complete result is refused by --resume, and its reports would stay missing).
    const write = run.settings.reports === false ? undefined : this.deps.writeReports;
    const reports = write ? await write(dir, result) : [];
    cp.save();
    const outcome = { dir, resultPath, result, reports, counts: countCells(run.plan, cp.cells) };
    if (tooLong.first)
      throw new RunEndedWithError(outcome, 'CONTEXT_TOO_LONG', tooLong.first.message, {
        hint: `The cells that fit were measured; those that did not are marked Failed in ${resultPath}.`,
      });
    return outcome;
  }
}

// The cells the plan skips as Over capacity and the result does not hold yet: the live view shows them so.
const overCapacityLeft = (plan: Plan, cp: Checkpoint) =>
  plan.cells
    .filter((c) => c.status === 'Over capacity' && !cp.hasCell(c.contextTokens, c.concurrency))
    .map(({ contextTokens, concurrency }) => ({ contextTokens, concurrency }));

function announce(run: OpenedRun, progress: ProgressSink): void {
  const { plan, checkpoint: cp, settings: s } = run;
  // A resumed run's prefill points already say how fast this server prefills: the estimate and the ETA start
  // from them, not from the engine's prior.
  const samples = prefillSamples(cp.result.prefill);
  const prefillModel = fitPrefillModel(samples, priorPrefillModel(run.info.engine.name));
  const est = estimateDuration(planLeft(plan, cp.cells, cp.result.prefill, cp.levels), {
    duration: s.duration,
    prefillRepeats: prefillRepeatsOf(s),
    repeats: s.repeats,
    engine: run.info.engine.name,
    prefill: prefillModel,
  });
  progress.start({
    runId: run.runId,
    dir: cp.dir,
    model: run.info.model,
    contexts: plan.contexts,
    concurrency: plan.concurrency,
    counts: countCells(plan, cp.cells),
    prefillTotal: plan.prefill.length - cp.prefillCount,
    estimateS: est.totalS,
    steps: est.steps,
    prefillPrior: prefillModel,
    // `plan --base-url` times two prompts first; the run's first figure for prefill is its first point.
    prefillGuessed: samples.length === 0 && est.prefillS >= 0.25 * est.totalS,
    done: cp.cells,
    overCapacity: overCapacityLeft(plan, cp),
    resumed: run.resumed,
    ...(plan.levels?.length ? { levels: levelsLeft(plan, cp, run.settings.drainTimeout) } : {}),
  });
  // Contexts the server cannot take were skipped above ("skipped as too long"): say which and what fits.
  const long = tooLongNote(plan);
  if (long) (progress.note ?? progress.warn)(`note: ${long.note}.`);
}

// The load levels a run has left: planned levels not in the result, and the searches not done.
function levelsLeft(plan: Plan, cp: Checkpoint, drainS: number): NonNullable<ProgressStart['levels']> {
  const rows = plan.levels ?? [];
  const levels = rows.flatMap((r) => r.levels).filter((l) => !cp.hasLevel(l.key)).length;
  const searches = rows.filter((r) => r.search && !cp.search(r.row)?.done);
  return {
    levels,
    rows: rows.length,
    ...(searches.length ? { searchWindows: searches[0]!.search!.windows } : {}),
    ...(rows.some((r) => r.search || r.levels.some((l) => l.load.model !== 'closed')) ? { drainS } : {}),
  };
}

// One throwaway request first: connection setup and first-use costs (both sides) stay out of the first cold
// prefill; a wrong key or model fails here, before any measurement.
async function connect(sender: Sender, stop: AbortSignal, progress: ProgressSink): Promise<Sent[]> {
  if (stop.aborted) return [];
  progress.phase('connecting');
  const first = await sender.send({
    cell: 'connect',
    phase: 'warmup',
    contextTokens: CONNECT_PROMPT_TOKENS,
    slot: 0,
    maxOutput: 1,
    signal: stop,
  });
  const code = fatalCode(first.record);
  if (code) throw fatalError(code, first.record, 'the first request');
  return [first];
}

// Contexts in order, each its prefill point and then its cells; stops at an interrupt.
async function measureContexts(
  run: OpenedRun,
  env: CellEnv,
  tooLong: TooLong,
  progress: ProgressSink,
): Promise<void> {
  const { plan, checkpoint: cp } = run;
  const keep: Keep = {
    warn: (w) => {
      cp.warn(w);
      progress.warn(w);
    },
    cell: (cell) => {
      cp.addCell(cell);
      progress.cellDone(cell, countCells(run.plan, cp.cells));
    },
  };
  for (const ctx of runContexts(plan)) {
    if (env.stop.aborted) return;
    const pp = plan.prefill.find((p) => p.contextTokens === ctx);
    if (pp && !cp.hasPrefill(ctx)) {
      const repeats = prefillRepeatsOf(run.settings);
      const r = await measurePrefillPoint(env.sender, pp, repeats, env.stop, tooLong, env.phase, env.dir);
      cp.log(r.sent);
      if ('interrupted' in r) return;
      r.warnings.forEach(keep.warn);
      if (!('cell' in r)) throw r.fatal;
      cp.addPrefill(r.cell);
      progress.prefillDone(r.cell);
    }
    // Looked up per cell: a capacity check that ran whole re-plans the cells after it (raisedCapacity).
    for (const n of plan.concurrency) {
      const pc = run.plan.cells.find((c) => c.contextTokens === ctx && c.concurrency === n);
      if (env.stop.aborted) return;
      if (!pc || cp.hasCell(ctx, n)) continue;
      const proven = (tokens: number) => {
        run.plan = raisedCapacity(run.plan, tokens, run.planInput);
        progress.replanned?.(overCapacityLeft(run.plan, cp));
      };
      if (!(await decodeCell(env, cp, pc, tooLong, { ...keep, proven }))) return;
    }
    // The context's load levels after its cells (docs/workloads.md "How a run orders its levels").
    for (const row of (plan.levels ?? []).filter((r) => r.contextTokens === ctx))
      if (!(await measureRow(env, levelEnv(run, env), row, cp, levelKeep(cp, progress)))) return;
  }
  // A workload other than fixed: its one row.
  for (const row of (plan.levels ?? []).filter((r) => r.contextTokens === undefined))
    if (!(await measureRow(env, levelEnv(run, env), row, cp, levelKeep(cp, progress)))) return;
}

// What the levels of a run share: the workload, a trace's schedule, the service level, the prompt bank.
function levelEnv(run: OpenedRun, env: CellEnv): LevelEnv & { searchLoad?: SearchLoad } {
  const t = run.traffic;
  const load = t.load;
  const maxModelLen = run.plan.maxModelLen;
  return {
    runId: run.runId,
    workload: t.loaded,
    ...(t.timestampsMs ? { timestampsMs: t.timestampsMs } : {}),
    ...(maxModelLen !== undefined ? { maxModelLen } : {}),
    slo: run.settings.slo ?? DEFAULT_SERVICE_LEVEL,
    bank: env.bank!,
    ...(load.model === 'open' ? { searchLoad: openLevelsOf(load) } : {}),
  };
}

function levelKeep(cp: Checkpoint, progress: ProgressSink): LevelKeep {
  return {
    warn: (w) => {
      cp.warn(w);
      progress.warn(w);
    },
    level: (l, step) => progress.levelDone?.(l, step),
  };
}

interface Keep {
  warn(w: string): void;
  cell(cell: DecodeCell): void; // saved, then shown
  proven?(tokens: number): void; // a capacity check ran whole: the server holds at least this
}

// One planned cell: skipped by the capacity rule, failed as too long, or measured. false: interrupted.
async function decodeCell(
  env: CellEnv,
  cp: Checkpoint,
  pc: PlannedCell,
  tooLong: TooLong,
  keep: Keep,
): Promise<boolean> {
  const { contextTokens: ctx, concurrency: n } = pc;
  const startedAt = isoTime(env.clock);
  if (pc.status === 'Over capacity') {
    const queueEvidence = pc.reason ?? 'over capacity';
    keep.cell({ ...emptyCell(ctx, n, 'Over capacity'), queueEvidence, startedAt, finishedAt: startedAt });
  } else if (tooLong.blocks(ctx, pc.status === 'Too long')) {
    keep.cell(tooLong.blockedCell(ctx, n, pc.reason, startedAt));
  } else {
    const r = await measureRepeats(env, ctx, n, startedAt, referenceFromCells(cp.result.decode, ctx, n));
    cp.log(r.sent);
    if ('interrupted' in r) return false;
    r.warnings.forEach(keep.warn);
    if ('cell' in r) keep.cell(withCapacityCheck(r.cell, pc, keep));
    if (r.fatal && ('cell' in r || r.fatal.code !== 'CONTEXT_TOO_LONG')) throw r.fatal;
    if (!('cell' in r)) {
      tooLong.refused(r.fatal, ctx);
      keep.cell(tooLong.failedCell(ctx, n, r.fatal.message, startedAt, isoTime(env.clock)));
    }
  }
  return true;
}

// A cell measured over the capacity figure keeps what the server did with it (src/plan/capacity.ts).
function withCapacityCheck(cell: DecodeCell, pc: PlannedCell, keep: Keep): DecodeCell {
  if (!pc.capacityCheck) return cell;
  const failures = failedRequests(cell.errors).reduce((a, [, n]) => a + n, 0);
  const held = capacityRuleHeld(cell.status, failures);
  cell.capacityCheck = { ...pc.capacityCheck, held };
  if (!held) keep.proven?.(pc.capacityCheck.needTokens);
  return cell;
}

// The run stops on an error: the result says so on disk (the last checkpoint stands if even that save fails),
// and the error tells where the finished cells are.
function failed(cp: Checkpoint, e: unknown, clock: Clock): unknown {
  const { result, dir } = cp;
  result.status = 'failed';
  result.finishedAt = isoTime(clock);
  if (isBenchError(e)) result.error = { code: e.code, message: e.message };
  try {
    cp.save();
  } catch (saveError) {
    // A full disk fails this save too: report the first error.
    if (!isBenchError(e)) return saveError;
  }
  if (!isBenchError(e)) return e;
  if (e.code === 'WRITE_FAILED')
    return new BenchError(e.code, e.message, {
      hint: `Finished cells are kept in ${dir}; free some space, then continue with \`${cliCommand('run', '--resume', dir)}\`.`,
    });
  return e.hint ? e : new BenchError(e.code, e.message, { hint: `Finished cells are kept in ${dir}.` });
}

function defaultSampler(
  info: TargetInfo,
  baseUrl: string,
  apiKey: string | undefined,
  intervalMs: number,
): MetricsSampler | undefined {
  if (!info.metricsAvailable) return undefined;
  return createMetricsSampler(info, { baseUrl, ...(apiKey ? { apiKey } : {}), intervalMs });
}
