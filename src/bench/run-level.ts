import type { ClientLoad } from '../client/self-check.js';
import { sleep, type Clock } from '../clock.js';
import type { BenchError } from '../errors.js';
import type { ServerSample } from '../results/schema.js';
import type { MeasureWindow } from '../stats/window.js';
import type { MetricsSampler } from '../target/metrics-sampler.js';
import { worstLoad } from './drive/agents/merge.js';
import { fatalError } from './drive/fatal.js';
import { inThreadSessions } from './drive/in-thread.js';
import {
  clientThreads,
  type CellAgentsRun,
  type CellMonitor,
  type DriveSpec,
  type SessionEvents,
  type SessionRunner,
} from './drive/runner.js';
import type { Sender, Sent } from './drive/sender.js';
import { errorLimit } from './drive/session-loop.js';
import { workerSessions } from './drive/workers/worker-sessions.js';

// One load level's sessions on the configured executor, from start to close (docs/workloads.md "Load models"):
// a closed level ramps its N sessions, opens its window when each has a first token (or at the ramp timeout) and
// aborts everything at the close (a decode cell is one: decode-cell.ts); a scheduled level (open, trace) starts
// each session at its arrival, opens its window after the warm-up, sends no arrival after the close and lets the
// window's requests run to their end, at most the drain timeout, before it aborts the rest (they count as
// unfinished). The figures are the caller's (buildDecodeCell for a cell).
export interface LevelRunSpec {
  drive: Omit<DriveSpec, 'share' | 'window'>; // the sessions; the runner splits them, the window is set here
  label: string; // names the level in an error: "decode 8K x4", "level shared-prefix@2/s"
  durationMs: number; // the window
  rampTimeoutMs?: number; // closed: the window opens at the last session's first token, or at this
  warmupMs?: number; // scheduled: the window opens this long after the level's zero (excluded from figures)
  drainTimeoutMs?: number; // scheduled: the longest the window's requests run after the close
  workers?: number; // > 1: the sessions run on worker threads (drive/workers)
}

export interface LevelRun {
  window: MeasureWindow;
  zeroMs: number; // the schedule's origin on the caller's clock: a request's scheduledAtMs is zeroMs + its offset
  sent: Sent[]; // every request of the level (ramp or warm-up and window), in end order
  rampTimedOut: boolean; // closed: the window opened at the ramp timeout, not every session streaming
  errorLimitHit: boolean;
  drainTimedOut: boolean; // scheduled: requests still ran at the drain timeout and were aborted
  samples: ServerSample[];
  fatal?: BenchError; // a refusal no retry can fix (key, model, too long): the level stops
  interrupted: boolean;
  clientLoad?: ClientLoad; // over several agents: the busiest one's (agents/merge.ts worstLoad)
  agents?: CellAgentsRun; // the sessions ran on several machines (docs/distributed.md)
}

// Where a level's sessions run, when not in this process alone: the agents' runner (drive/agents/hub.ts).
export type SessionsOn = (spec: DriveSpec) => SessionRunner;

/** The runner of a level's sessions: the agents', worker threads', or this thread's. */
export function levelRunner(
  sender: Sender,
  clock: Clock,
  spec: DriveSpec,
  workers: number | undefined,
  sessionsOn?: SessionsOn,
): SessionRunner {
  if (sessionsOn) return sessionsOn(spec);
  if (clientThreads(workers) > 1) return workerSessions(sender, spec, workers!);
  return inThreadSessions(sender, clock, spec);
}

export async function runLevel(
  sender: Sender,
  clock: Clock,
  spec: LevelRunSpec,
  sampler: MetricsSampler | undefined,
  stop: AbortSignal,
  monitor?: CellMonitor,
  sessionsOn?: SessionsOn,
): Promise<LevelRun> {
  const load = spec.drive.level.load;
  const closed = load.model === 'closed';
  const warmupMs = spec.warmupMs ?? 0;
  const drive: DriveSpec = closed
    ? spec.drive
    : { ...spec.drive, window: { openAfterMs: warmupMs, closeAfterMs: warmupMs + spec.durationMs } };
  const runner = levelRunner(sender, clock, drive, spec.workers, sessionsOn);
  const early = new AbortController(); // fatal error, error limit or interrupt: skip the remaining waits
  const onStop = () => early.abort();
  stop.addEventListener('abort', onStop, { once: true });
  const tally = new LevelTally(closed ? load.concurrency : 0, closed, early);
  try {
    const zeroMs = await runner.start(tally.events());
    const { openMs, rampTimedOut } = await windowOpens(clock, spec, closed, zeroMs, tally, early.signal);
    runner.openWindow({ openMs, closeMs: openMs + spec.durationMs });
    sampler?.start(openMs);
    monitor?.start(runner.loops?.() ?? []);
    // A closed window lasts at least its duration from the instant it opened (a late timer makes it longer); a
    // scheduled one is its schedule's, whenever the timer runs.
    await sleep(clock, closed ? spec.durationMs : openMs + spec.durationMs - clock.now(), early.signal);
    const closeMs = closed ? clock.now() : openMs + spec.durationMs;
    const ownLoad = monitor?.stop();
    const done = runner.finished();
    const drainTimedOut = !closed && !(await drained(clock, done, spec.drainTimeoutMs ?? 0, early.signal));
    runner.close();
    const samples = sampler ? await sampler.stop() : [];
    const sent = await done;
    const agents = runner.agents?.();
    const clientLoad = clientLoadOf(ownLoad, agents);
    const run: LevelRun = {
      window: { openMs, closeMs },
      zeroMs,
      sent,
      rampTimedOut,
      errorLimitHit: tally.errorLimitHit,
      drainTimedOut,
      samples,
      interrupted: stop.aborted,
      ...(clientLoad ? { clientLoad } : {}),
      ...(agents ? { agents } : {}),
    };
    if (tally.fatal) run.fatal = fatalError(tally.fatal.code, tally.fatal.sent.record, spec.label);
    return run;
  } finally {
    stop.removeEventListener('abort', onStop);
  }
}

// What a level's sessions report while it runs: the ramp (closed: n sessions, each at its first token) and the
// errors that stop it (a fatal one, or a closed level's error limit).
class LevelTally {
  readonly rampDone = new AbortController();
  readonly firstSeen = new Set<number>();
  errors = 0;
  errorLimitHit = false;
  fatal: Parameters<SessionEvents['onError']>[0];

  constructor(
    readonly n: number,
    private readonly closed: boolean,
    private readonly early: AbortController,
  ) {}

  events(): SessionEvents {
    return {
      early: this.early.signal,
      endEarly: () => this.early.abort(),
      onFirstToken: (session) => {
        this.firstSeen.add(session);
        if (this.firstSeen.size === this.n) this.rampDone.abort();
      },
      onError: (f) => {
        this.errors += 1;
        if (f && !this.fatal) this.fatal = f;
        // A scheduled level's failures are its data (goodput); only a refusal no retry can fix stops it.
        if (!this.fatal && (!this.closed || this.errors < errorLimit(this.n))) return false;
        this.errorLimitHit = !this.fatal;
        this.early.abort();
        return true;
      },
    };
  }
}

// Waits for the window to open: a closed level's ramp (every first token, at most the ramp timeout), a scheduled
// level's warm-up from its zero.
async function windowOpens(
  clock: Clock,
  spec: LevelRunSpec,
  closed: boolean,
  zeroMs: number,
  tally: LevelTally,
  early: AbortSignal,
): Promise<{ openMs: number; rampTimedOut: boolean }> {
  if (closed) {
    await sleep(clock, spec.rampTimeoutMs ?? 0, AbortSignal.any([tally.rampDone.signal, early]));
    return { openMs: clock.now(), rampTimedOut: tally.firstSeen.size < tally.n };
  }
  const openMs = zeroMs + (spec.warmupMs ?? 0);
  await sleep(clock, openMs - clock.now(), early);
  return { openMs, rampTimedOut: false };
}

// The client's own load over the window: over several agents, the busiest one's, this process counted as agent 0.
function clientLoadOf(
  own: ClientLoad | undefined,
  agents: CellAgentsRun | undefined,
): ClientLoad | undefined {
  return agents ? worstLoad([...(own ? [{ agent: 0, load: own }] : []), ...agents.loads]) : own;
}

// Waits for the sessions to end on their own, at most timeoutMs; true when they did.
async function drained(clock: Clock, done: Promise<unknown>, timeoutMs: number, early: AbortSignal) {
  const gaveUp = new AbortController();
  let ended = false;
  const over = done.then(
    () => (ended = true),
    () => (ended = true),
  );
  await Promise.race([over, sleep(clock, timeoutMs, AbortSignal.any([early, gaveUp.signal]))]);
  gaveUp.abort();
  return ended;
}
