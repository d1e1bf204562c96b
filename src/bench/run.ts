import { fsError } from '../fs-errors.js';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { streamRequest } from '../client/stream.js';
import { BenchError, isBenchError } from '../errors.js';
import { buildPlan, type Plan } from '../plan/plan.js';
import { estimateDuration } from '../plan/estimate.js';
import { priorPrefillModel } from '../plan/prefill-model.js';
import { silentProgress, type ProgressSink } from '../progress/sink.js';
import { contextLabel } from '../format/labels.js';
import {
  REQUEST_LOG_FILE,
  RESULT_FILE,
  appendRequestLines,
  keepRequestLines,
  readResult,
  writeResult,
} from '../results/io.js';
import type { DecodeCell, PrefillPoint, RunResult } from '../results/schema.js';
import { registerSecret } from '../secrets.js';
import { createMetricsSampler, type MetricsSampler } from '../target/metrics-sampler.js';
import { probeTarget } from '../target/probe.js';
import type { TargetInfo } from '../target/types.js';
import { referenceFromCells } from '../stats/queue.js';
import { buildDecodeCell } from './cell-result.js';
import { realClock, type BenchClock, type PromptSource, type StreamFn } from './context.js';
import { runDecodeCell } from './decode-cell.js';
import { fatalCode, fatalError } from './fatal.js';
import { measurePrefill } from './prefill.js';
import { createPromptSource } from './prompt-source.js';
import { resultSkeleton, settingsFromResult } from './result-state.js';
import { Sender, toRequestLine, type Sent } from './sender.js';
import { newRunId, normalizeBaseUrl, type RunSettings } from './settings.js';
import { settle } from './settle.js';
import { withoutLocalHardwareForSim } from './sim-hardware.js';
import { warmUp, warmUpWarnings } from './warmup.js';

export interface BenchRunDeps {
  clock?: BenchClock;
  stream?: StreamFn; // default: the undici client (src/client)
  probe?: typeof probeTarget;
  createSampler?: (
    info: TargetInfo,
    baseUrl: string,
    apiKey: string | undefined,
    intervalMs: number,
  ) => MetricsSampler | undefined;
  createPrompts?: (o: {
    runId: string;
    seed: number;
    baseUrl: string;
    apiKey?: string;
    info: TargetInfo;
    api: 'chat' | 'completions';
  }) => Promise<PromptSource>;
  progress?: ProgressSink;
  writeReports?: (dir: string, result: RunResult) => Promise<string[]>;
}

export interface RunOutcome {
  dir: string;
  resultPath: string;
  result: RunResult;
  reports: string[];
}

const cellKey = (c: number, n: number) => `decode ${c}x${n}`;
const CONNECT_PROMPT_TOKENS = 1024;

// One benchmark run: probe, plan, prefill, decode cells, checkpoint after each, reports at the end.
// No global state: start() may be called again for a new run (a fresh runId unless one was given).
export class BenchRun {
  private stopper = new AbortController();
  private running = false;

  constructor(
    private readonly settings: RunSettings,
    private readonly deps: BenchRunDeps = {},
  ) {}

  // Ctrl-C: abort what is in flight, keep every finished cell, mark the result interrupted.
  interrupt(): void {
    this.stopper.abort();
  }

  get interrupted(): boolean {
    return this.stopper.signal.aborted;
  }

  async start(): Promise<RunOutcome> {
    if (this.running) throw new BenchError('USAGE', 'this run is already in progress');
    this.running = true;
    this.stopper = new AbortController();
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

    // Resume: the stored result fixes runId, seed, lists and target so the prompts and cells are the same.
    let previous: RunResult | undefined;
    let s = this.settings;
    if (s.resumeDir !== undefined) {
      const path = join(s.resumeDir, RESULT_FILE);
      if (!existsSync(path))
        throw new BenchError('USAGE', `nothing to resume in ${s.resumeDir}: no ${RESULT_FILE}`, {
          hint: 'Pass the run folder (<out>/<runId>) to --resume.',
        });
      previous = readResult(path);
      if (previous.status === 'complete')
        throw new BenchError('USAGE', `the run in ${s.resumeDir} is already complete; nothing to resume.`);
      s = settingsFromResult(previous, s);
    }
    if (!s.baseUrl)
      throw new BenchError('USAGE', 'no server given.', { hint: 'Pass --base-url http://HOST:PORT/v1.' });
    const baseUrl = normalizeBaseUrl(s.baseUrl);
    const probed = await (this.deps.probe ?? probeTarget)({
      baseUrl,
      ...(s.apiKey ? { apiKey: s.apiKey } : {}),
      ...(s.model ? { model: s.model } : {}),
      ...(s.engine ? { engine: s.engine } : {}),
      ...(s.hardware ? { hardware: s.hardware } : {}),
      ...(s.launchCommand ? { launchCommand: s.launchCommand } : {}),
      engineFlags: { ...s.engineFlags, ...(s.quantization ? { quantization: s.quantization } : {}) },
    });
    const info = withoutLocalHardwareForSim(probed, s.hardware, s.engineFlags?.backend);
    if (previous && previous.target.model !== info.model)
      throw new BenchError(
        'RESUME_MISMATCH',
        `the server now serves ${info.model}, the run measured ${previous.target.model}.`,
        {
          hint: 'Resume against the same server and model, or start a new run.',
        },
      );

    const maxModelLen = s.maxModelLen ?? info.maxModelLen;
    const kvCapacityTokens = s.kvCapacity ?? info.kvCapacityTokens;
    const plan = buildPlan({
      ...(maxModelLen !== undefined ? { maxModelLen } : {}),
      ...(kvCapacityTokens !== undefined ? { kvCapacityTokens } : {}),
      maxOutput: s.maxOutput,
      ...(s.contexts ? { contexts: s.contexts } : {}),
      ...(s.prefillContexts ? { prefillContexts: s.prefillContexts } : {}),
      ...(s.concurrency ? { concurrency: s.concurrency } : {}),
    });

    const runId = previous?.runId ?? s.runId ?? newRunId();
    const dir = previous ? s.resumeDir! : join(s.outDir, runId);
    if (!previous && existsSync(join(dir, RESULT_FILE)))
      throw new BenchError('USAGE', `${dir} already holds a result.`, {
        hint: `Continue it with --resume ${dir}, or pick another --run-id.`,
      });
    try {
      mkdirSync(dir, { recursive: true });
    } catch (e) {
      throw fsError('WRITE_FAILED', `cannot create ${dir}`, e);
    }
    const logPath = join(dir, REQUEST_LOG_FILE);
    const result: RunResult = previous
      ? { ...previous, status: 'running' }
      : resultSkeleton({
          runId,
          settings: s,
          baseUrl,
          info,
          plan,
          maxModelLen,
          kvCapacityTokens,
          startedAt: clock.wallIso(),
        });
    delete result.error;
    const donePrefill = new Map(result.prefill.map((p) => [p.contextTokens, p]));
    const doneCells = new Map(result.decode.map((c) => [cellKey(c.contextTokens, c.concurrency), c]));
    keepRequestLines(
      logPath,
      (cell) =>
        doneCells.has(cell) || (cell.startsWith('prefill ') && donePrefill.has(Number(cell.slice(8)))),
    );
    const save = () => {
      result.prefill.sort((a, b) => a.contextTokens - b.contextTokens);
      const order = new Map(plan.cells.map((c, i) => [cellKey(c.contextTokens, c.concurrency), i]));
      result.decode.sort(
        (a, b) =>
          (order.get(cellKey(a.contextTokens, a.concurrency)) ?? 0) -
          (order.get(cellKey(b.contextTokens, b.concurrency)) ?? 0),
      );
      return writeResult(dir, result);
    };
    const resultPath = save();

    const stream = this.deps.stream ?? streamRequest;
    const prompts = await (this.deps.createPrompts ?? createPromptSource)({
      runId,
      seed: result.config.seed,
      baseUrl,
      ...(s.apiKey ? { apiKey: s.apiKey } : {}),
      info,
      api: s.api,
    });
    const sender = new Sender(
      {
        baseUrl,
        ...(s.apiKey ? { apiKey: s.apiKey } : {}),
        api: s.api,
        ignoreEos: result.config.ignoreEos,
        sampling: result.config.sampling,
        idPrefix: `${runId}-${Math.random().toString(36).slice(2, 6)}`,
      },
      info,
      prompts,
      stream,
      clock,
    );
    const makeSampler = this.deps.createSampler ?? defaultSampler;
    const sampler = makeSampler(info, baseUrl, s.apiKey, s.metricsIntervalS * 1000);

    const toMeasure = plan.cells.filter(
      (c) => c.status === 'run' && !doneCells.has(cellKey(c.contextTokens, c.concurrency)),
    );
    const est = estimateDuration(
      { ...plan, cells: toMeasure, prefill: plan.prefill.filter((p) => !donePrefill.has(p.contextTokens)) },
      { durationS: s.durationS, prefillRepeats: s.prefillRepeats, engine: info.engine.name },
    );
    progress.start({
      runId,
      dir,
      model: info.model,
      contexts: plan.contexts,
      concurrency: plan.concurrency,
      cellsTotal: toMeasure.length,
      prefillTotal: plan.prefill.length - donePrefill.size,
      estimateS: est.totalS,
      steps: est.steps,
      prefillPrior: priorPrefillModel(info.engine.name),
      done: [...doneCells.values()],
      resumed: previous !== undefined,
    });

    const stop = this.stopper.signal;
    let tooLong: BenchError | undefined;
    let tooLongFrom = Infinity; // decode contexts >= this fail (the server rejected one)
    const addWarning = (w: string) => {
      if (!result.warnings.includes(w)) result.warnings.push(w);
      progress.warn(w);
    };
    const addCell = (cell: DecodeCell) => {
      doneCells.set(cellKey(cell.contextTokens, cell.concurrency), cell);
      result.decode.push(cell);
      save();
      progress.cellDone(cell);
    };
    const log = (sent: readonly Sent[]) => appendRequestLines(logPath, sent.map(toRequestLine));

    try {
      // One throwaway request first: connection setup and first-use costs (both sides) stay out of the first
      // cold prefill; a wrong key or model fails here, before any measurement.
      if (!stop.aborted) {
        progress.phase('connecting');
        const first = await sender.send({
          cell: 'connect',
          phase: 'warmup',
          contextTokens: CONNECT_PROMPT_TOKENS,
          slot: 0,
          maxTokens: 1,
          signal: stop,
        });
        const code = fatalCode(first.record);
        if (code) throw fatalError(code, first.record, 'the first request');
      }
      const allContexts = [...new Set([...plan.prefill.map((p) => p.contextTokens), ...plan.contexts])].sort(
        (a, b) => a - b,
      );
      for (const ctx of allContexts) {
        if (stop.aborted) break;
        const pp = plan.prefill.find((p) => p.contextTokens === ctx);
        if (pp && !donePrefill.has(ctx)) {
          let point: PrefillPoint;
          if (pp.status === 'Too long') {
            point = failedPrefill(ctx, pp.decodeContext, `CONTEXT_TOO_LONG: ${pp.reason ?? ''}`);
            tooLong ??= new BenchError('CONTEXT_TOO_LONG', pp.reason ?? 'context too long');
          } else {
            progress.phase(`prefill ${contextLabel(ctx)} (cold)`);
            try {
              const r = await measurePrefill(sender, ctx, pp.decodeContext, s.prefillRepeats, stop);
              log(r.sent);
              if (stop.aborted) break;
              point = r.point;
            } catch (e) {
              const sent = (e as { sent?: Sent[] }).sent;
              if (sent) log(sent);
              if (!isBenchError(e) || e.code !== 'CONTEXT_TOO_LONG') throw e;
              point = failedPrefill(ctx, pp.decodeContext, `CONTEXT_TOO_LONG: ${e.message}`);
              if (pp.decodeContext) {
                tooLong ??= e;
                tooLongFrom = Math.min(tooLongFrom, ctx);
              } else {
                // The full window sits 256 tokens under the limit: a prompt a fraction of a percent long
                // can miss it. That is worth a warning, not a failed run.
                addWarning(
                  `prefill ${contextLabel(ctx)}: the server rejected the prompt as too long (${e.message})`,
                );
              }
            }
            if (point.repeats.some((r) => r.outlier))
              addWarning(
                `prefill ${contextLabel(ctx)}: a repeat differs from the median by more than 25% (flagged as outlier)`,
              );
            if (point.repeats.some((r) => (r.cachedTokens ?? 0) > 0))
              addWarning(`prefill ${contextLabel(ctx)}: the server reported cached tokens on a cold prompt`);
            for (const r of point.repeats)
              if (r.promptTokensSource === 'usage' && Math.abs(r.promptTokens - ctx) / ctx > 0.01)
                addWarning(
                  `prefill ${contextLabel(ctx)}: the prompt had ${r.promptTokens} tokens, more than 1% off its target`,
                );
          }
          donePrefill.set(ctx, point);
          result.prefill.push(point);
          save();
          progress.prefillDone(point);
        }
        for (const pc of plan.cells.filter((c) => c.contextTokens === ctx)) {
          if (stop.aborted) break;
          const key = cellKey(pc.contextTokens, pc.concurrency);
          if (doneCells.has(key)) continue;
          const startedAt = clock.wallIso();
          if (pc.status === 'Over capacity') {
            addCell({
              ...emptyCell(ctx, pc.concurrency, 'Over capacity'),
              queueEvidence: pc.reason ?? 'over capacity',
              startedAt,
              finishedAt: startedAt,
            });
            continue;
          }
          if (pc.status === 'Too long' || ctx >= tooLongFrom) {
            const reason = pc.reason ?? tooLong?.message ?? 'context too long';
            tooLong ??= new BenchError('CONTEXT_TOO_LONG', reason);
            addCell({
              ...emptyCell(ctx, pc.concurrency, 'Failed'),
              error: `CONTEXT_TOO_LONG: ${reason}`,
              startedAt,
              finishedAt: startedAt,
            });
            continue;
          }
          const label = `${contextLabel(ctx)} x${pc.concurrency}`;
          progress.phase(`warm-up ${label}`);
          let warm: Sent[];
          try {
            warm = await warmUp(sender, key, ctx, pc.concurrency, stop);
          } catch (e) {
            const sent = (e as { sent?: Sent[] }).sent;
            if (sent) log(sent);
            if (!isBenchError(e) || e.code !== 'CONTEXT_TOO_LONG') throw e;
            tooLong ??= e;
            tooLongFrom = Math.min(tooLongFrom, ctx);
            addCell({
              ...emptyCell(ctx, pc.concurrency, 'Failed'),
              error: `CONTEXT_TOO_LONG: ${e.message}`,
              startedAt,
              finishedAt: clock.wallIso(),
            });
            continue;
          }
          if (stop.aborted) break;
          progress.phase(`decode ${label}: ramp and ${s.durationS} s window`);
          const run = await runDecodeCell(
            sender,
            clock,
            {
              contextTokens: ctx,
              concurrency: pc.concurrency,
              maxOutput: result.config.maxOutput,
              durationMs: s.durationS * 1000,
              rampTimeoutMs: s.rampTimeoutS * 1000,
              ...(s.workers !== undefined ? { workers: s.workers } : {}),
            },
            sampler,
            stop,
          );
          if (run.interrupted) break; // the cell in progress is measured again on resume
          progress.phase(`settle after ${label}`);
          await settle(
            clock,
            sampler,
            { timeoutMs: s.settleTimeoutS * 1000, pauseMs: s.settlePauseS * 1000 },
            stop,
          );
          for (const w of warmUpWarnings(label, warm)) addWarning(w);
          log([...warm, ...run.sent]);
          if (run.fatal) {
            const err = fatalError(run.fatal.code, run.fatal.sent.record, `decode ${label}`);
            if (run.fatal.code !== 'CONTEXT_TOO_LONG') throw err;
            tooLong ??= err;
            tooLongFrom = Math.min(tooLongFrom, ctx);
            addCell({
              ...emptyCell(ctx, pc.concurrency, 'Failed'),
              error: `CONTEXT_TOO_LONG: ${err.message}`,
              startedAt,
              finishedAt: clock.wallIso(),
            });
            continue;
          }
          const cell = buildDecodeCell({
            contextTokens: ctx,
            concurrency: pc.concurrency,
            window: run.window,
            requests: run.sent.map((x) => ({
              sentAtMs: x.record.sentAtMs,
              endAtMs: x.record.endAtMs,
              chunks: x.record.chunks,
              ok: x.record.ok,
              ...(x.record.firstTokenAtMs !== undefined ? { firstTokenAtMs: x.record.firstTokenAtMs } : {}),
              ...(x.record.error ? { errorKind: x.record.error.kind } : {}),
              ...(x.record.promptTokens !== undefined ? { promptTokens: x.record.promptTokens } : {}),
              ...(x.record.cachedTokens !== undefined ? { cachedTokens: x.record.cachedTokens } : {}),
            })),
            samples: run.samples,
            rampTimedOut: run.rampTimedOut,
            errorLimitHit: run.errorLimitHit,
            queueReference: referenceFromCells(result.decode, ctx, pc.concurrency),
          });
          cell.startedAt = startedAt;
          cell.finishedAt = clock.wallIso();
          addCell(cell);
          if (cell.status === 'Failed' && unreachable(run.sent))
            throw new BenchError(
              'TARGET_UNREACHABLE',
              `the server stopped answering during decode ${label}.`,
              {
                hint: `Finished cells are kept; continue later with --resume ${dir}.`,
              },
            );
        }
      }
    } catch (e) {
      result.status = 'failed';
      result.finishedAt = clock.wallIso();
      if (isBenchError(e)) result.error = { code: e.code, message: e.message };
      try {
        save();
      } catch (saveError) {
        // A full disk fails this save too: the last checkpoint on disk stands; report the first error.
        if (!isBenchError(e)) throw saveError;
      }
      if (isBenchError(e) && e.code === 'WRITE_FAILED')
        throw new BenchError(e.code, e.message, {
          hint: `Finished cells are kept in ${dir}; free some space, then continue with --resume ${dir}.`,
        });
      if (isBenchError(e) && !e.hint)
        throw new BenchError(e.code, e.message, { hint: `Finished cells are kept in ${dir}.` });
      throw e;
    }

    result.finishedAt = clock.wallIso();
    if (stop.aborted) {
      result.status = 'interrupted';
      save();
      return { dir, resultPath, result, reports: [] };
    }
    result.status = 'complete';
    if (tooLong) result.error = { code: tooLong.code, message: tooLong.message };
    // Reports before the complete status reaches disk: a kill while they are written leaves a run that --resume
    // finishes (a complete result is refused by --resume, and its reports would stay missing).
    const reports =
      s.reports === false ? [] : await (this.deps.writeReports ?? writeReportsBeside)(dir, result);
    save();
    if (tooLong)
      throw new BenchError('CONTEXT_TOO_LONG', `${tooLong.message}`, {
        hint: `The cells that fit were measured; those that did not are marked Failed in ${resultPath}.`,
      });
    return { dir, resultPath, result, reports };
  }
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

// Reports are the report module's job; it may be absent in a partial build, so it is loaded lazily.
export async function writeReportsBeside(dir: string, result: RunResult): Promise<string[]> {
  const { writeFileAtomic } = await import('../results/io.js');
  let render: ((r: RunResult, f: 'html' | 'md') => string) | undefined;
  try {
    const mod = (await import('../report/index.js')) as {
      renderReport?: (r: RunResult, f: 'html' | 'md') => string;
    };
    render = mod.renderReport;
  } catch {
    render = undefined;
  }
  if (!render) return [];
  const out: string[] = [];
  for (const [fmt, name] of [
    ['html', 'report.html'],
    ['md', 'report.md'],
  ] as const) {
    const path = join(dir, name);
    const { redactSecrets } = await import('../secrets.js');
    writeFileAtomic(path, redactSecrets(render(result, fmt)));
    out.push(path);
  }
  return out;
}

function unreachable(sent: readonly Sent[]): boolean {
  const errs = sent.filter((x) => !x.record.ok && x.record.error?.kind !== 'aborted');
  return (
    errs.length > 0 &&
    errs.every((x) => x.record.error?.kind === 'connect' || x.record.error?.kind === 'timeout_connect') &&
    sent.every((x) => x.record.outputTokens === 0)
  );
}

export function emptyCell(
  contextTokens: number,
  concurrency: number,
  status: DecodeCell['status'],
): DecodeCell {
  return {
    contextTokens,
    concurrency,
    status,
    totalTokensPerS: null,
    perRequestTokensPerS: null,
    ttftMs: null,
    tbtMs: null,
    avgActive: null,
    completed: null,
    outputTokens: null,
    measuredS: null,
  };
}

function failedPrefill(contextTokens: number, decodeContext: boolean, error: string): PrefillPoint {
  return {
    contextTokens,
    status: 'Failed',
    promptTokens: null,
    ttftMs: null,
    tokensPerS: null,
    completed: 0,
    repeats: [],
    decodeContext,
    error,
  };
}

export type { Plan };
