import { clientCellFigures } from '../../client/cell-figures.js';
import { isoTime } from '../../clock.js';
import type { LevelSpec, LoadModel } from '../../load/sessions.js';
import type { PlannedLevel, PlannedRow } from '../../plan/levels.js';
import type { PromptBankSnapshot } from '../../prompts/bank.js';
import type { LoadLevel, ServiceLevel } from '../../results/schema.js';
import { measureLevel } from '../../stats/level-status.js';
import type { QueueReference } from '../../stats/queue.js';
import { windowArrivals, type LevelRequest } from '../../stats/level.js';
import type { LoadedWorkload } from '../../workloads/requests.js';
import { pinEstimatedChunks } from '../cell-client.js';
import { cellAgentsField } from '../drive/agents/cell-agents.js';
import { clientThreads } from '../drive/runner.js';
import type { Sent } from '../drive/sender.js';
import { runLevel, type LevelRun, type LevelRunSpec } from '../run-level.js';
import { settle } from '../settle.js';
import type { CellEnv } from './measure-cell.js';
import { cellRequest, stoppedAnswering, unreachable } from './measure-cell.js';
import type { Measured } from './outcome.js';

// What every load level of a run shares (docs/workloads.md): the workload with its file read, a trace's
// timestamps, the prompt bank measured once for this server, and the service level its goodput is judged by.
export interface LevelEnv {
  runId: string;
  workload: LoadedWorkload;
  timestampsMs?: readonly number[]; // --trace: the schedule, in time order
  maxModelLen?: number;
  slo: ServiceLevel;
  bank: () => Promise<PromptBankSnapshot>;
}

// The sessions of one planned level (src/load planLevel reads it on every executor).
export function levelSpecOf(env: CellEnv, lv: LevelEnv, row: PlannedRow, l: PlannedLevel): LevelSpec {
  const s = env.settings;
  const load = l.load;
  const model: LoadModel =
    load.model === 'closed'
      ? { model: 'closed', concurrency: load.concurrency }
      : load.model === 'open'
        ? {
            model: 'open',
            rate: load.rate,
            arrival: load.arrival,
            ...(load.burstiness !== undefined ? { burstiness: load.burstiness } : {}),
          }
        : { model: 'trace', timeScale: load.timeScale, timestampsMs: lv.timestampsMs ?? [] };
  return {
    runId: lv.runId,
    seed: s.seed,
    row: row.row,
    key: l.key,
    load: model,
    ...(load.model === 'open' ? { horizonMs: l.scheduleS * 1000 } : {}),
    workload: lv.workload,
    maxOutput: s.maxOutput,
    ...(row.contextTokens !== undefined ? { contextTokens: row.contextTokens } : {}),
    ...(lv.maxModelLen !== undefined ? { maxModelLen: lv.maxModelLen } : {}),
  };
}

// A level's request as its figures read it: the cell's, plus its schedule and the workload's cacheable tokens.
function levelRequest(x: Sent): LevelRequest {
  const t = x.spec;
  return {
    ...cellRequest(x),
    ...(t.scheduledAtMs !== undefined ? { scheduledAtMs: t.scheduledAtMs } : {}),
    ...(t.releasedAtMs !== undefined ? { releasedAtMs: t.releasedAtMs } : {}),
    ...(t.cacheableTokens !== undefined ? { cacheableTokens: t.cacheableTokens } : {}),
  };
}

/**
 * One load level (docs/workloads.md "Figures of a load level"): its sessions on the run's executor (warm-up or
 * ramp, window, drain), the server settled, then its figures and status (measureLevel). A refusal no retry can
 * fix comes back as `fatal`; an interrupt keeps nothing of the level (measured again on resume).
 */
export async function measureLoadLevel(
  env: CellEnv,
  lv: LevelEnv,
  row: PlannedRow,
  l: PlannedLevel,
  reference: QueueReference | null,
): Promise<Measured<LoadLevel>> {
  const { sender, clock, stop, settings: s } = env;
  const startedAt = isoTime(clock);
  const t = levelTimes(env.settings, l);
  const label = `level ${l.key}`;
  env.phase(
    t.closed
      ? `${label}: ramp and ${s.duration} s window`
      : `${label}: ${s.warmup} s warm-up, ${Math.round(t.durationMs / 100) / 10} s window`,
  );
  const bank = await lv.bank();
  const run = await runLevel(
    sender,
    clock,
    levelRunSpec(env, lv, row, l, t, label, bank),
    env.sampler,
    stop,
    env.monitor?.(clientThreads(s.workers)),
    env.agents ? (spec) => env.agents!.sessions(sender, clock, spec, s.workers) : undefined,
  );
  if (run.interrupted) return { sent: [], interrupted: true };
  env.phase(`settle after ${label}`, label);
  await settle(
    clock,
    env.sampler,
    { timeoutMs: s.settleTimeout * 1000, pauseMs: s.settlePause * 1000 },
    stop,
  );
  const sent = await pinEstimatedChunks(run.sent, env.tokenize);
  if (run.fatal) return { sent, fatal: run.fatal, warnings: [] };
  const level = levelFigures(lv, row, l, reference, run, sent, t.closed);
  const warnings = clientFigures(level, run, sent, t.durationMs, label);
  if (run.drainTimedOut)
    warnings.push(
      `${label}: ${level.requests.unfinished} of the window's requests still ran ${s.drainTimeout} s after its close and were aborted (unfinished; --drain-timeout)`,
    );
  level.startedAt = startedAt;
  level.finishedAt = isoTime(clock);
  if (level.status !== 'Failed' || !unreachable(run.sent)) return { sent, cell: level, warnings };
  return { sent, cell: level, warnings, fatal: stoppedAnswering(label, env.dir) };
}

// A level's spans in ms: a closed level ramps, then measures --duration; a scheduled one warms up, measures the
// rest of its schedule, then drains.
interface LevelTimes {
  closed: boolean;
  warmupMs: number;
  durationMs: number;
  drainMs: number;
  rampMs: number;
}

function levelTimes(s: CellEnv['settings'], l: PlannedLevel): LevelTimes {
  const closed = l.load.model === 'closed';
  const warmupMs = closed ? 0 : s.warmup * 1000;
  return {
    closed,
    warmupMs,
    durationMs: closed ? s.duration * 1000 : l.scheduleS * 1000 - warmupMs,
    drainMs: s.drainTimeout * 1000,
    rampMs: s.rampTimeout * 1000,
  };
}

function levelRunSpec(
  env: CellEnv,
  lv: LevelEnv,
  row: PlannedRow,
  l: PlannedLevel,
  t: LevelTimes,
  label: string,
  bank: PromptBankSnapshot,
): LevelRunSpec {
  const s = env.settings;
  const load = l.load;
  return {
    drive: {
      cell: l.key,
      label: l.key,
      level: levelSpecOf(env, lv, row, l),
      // A request lives at most until the level ends: its first-token deadline must not cut a queued one.
      firstTokenTimeoutMs:
        (t.closed ? t.rampMs + t.durationMs : t.warmupMs + t.durationMs + t.drainMs) + 60_000,
      tagSessions: true,
      bank,
      ...(load.model === 'open' && load.maxInFlight !== undefined ? { maxInFlight: load.maxInFlight } : {}),
    },
    label,
    durationMs: t.durationMs,
    ...(t.closed ? { rampTimeoutMs: t.rampMs } : { warmupMs: t.warmupMs, drainTimeoutMs: t.drainMs }),
    ...(s.workers !== undefined ? { workers: s.workers } : {}),
  };
}

// The level's figures and status from its requests (src/stats/level-status.ts measureLevel).
function levelFigures(
  lv: LevelEnv,
  row: PlannedRow,
  l: PlannedLevel,
  reference: QueueReference | null,
  run: LevelRun,
  sent: Sent[],
  closed: boolean,
): LoadLevel {
  const requests = sent.map(levelRequest);
  const window = run.window;
  const arrivals = windowArrivals(requests, window);
  return measureLevel({
    row: row.row,
    key: l.key,
    load: l.load,
    requests,
    window,
    slo: lv.slo,
    samples: run.samples,
    reference,
    ...(run.errorLimitHit ? { errorLimitHit: true } : {}),
    ...(run.agents?.lost ? { failedBy: run.agents.lost } : {}),
    ...(!closed && arrivals.length ? { drainEndMs: Math.max(...arrivals.map((r) => r.endAtMs)) } : {}),
  });
}

// The client's side of the level (its own load, and the agents' when several ran it) set on it; returns the
// warnings it raises.
function clientFigures(
  level: LoadLevel,
  run: LevelRun,
  sent: Sent[],
  durationMs: number,
  label: string,
): string[] {
  const figures = clientCellFigures(
    sent.map((x) => x.record),
    run.window,
    { ...(run.clientLoad ? { load: run.clientLoad } : {}), tbtMs: level.itlMs.p50 },
  );
  const warnings: string[] = [];
  if (figures.client) {
    const { wallMs: _wall, ...client } = figures.client;
    level.client = client;
  }
  if (run.agents) {
    level.agents = cellAgentsField(run.agents, durationMs);
    if (level.agents.clockFlag) warnings.push(`${label}: ${level.agents.clockFlag}`);
  }
  return warnings;
}
