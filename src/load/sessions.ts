// The sessions of a load level (docs/workloads.md "Sessions"): every load model is a set of sessions, each a
// sequence of turns, each turn one request of the workload. Plain data in, plain data out (RequestPlan), and
// seeded, so the coordinator, a worker and an agent given the same LevelSpec build the same plans and each takes
// its sessions by number (session s on executor (s - 1) mod K).
import { BenchError } from '../errors.js';
import type { PromptRecipe } from '../prompts/recipe.js';
import {
  workloadRequests,
  type LoadedWorkload,
  type WorkloadRequest,
  type WorkloadRequests,
} from '../workloads/requests.js';
import { arrivalOffsets, arrivalSeed, traceSchedule, type ArrivalKind } from './arrivals.js';

export type LoadModel =
  /** N sessions at once, each sending its next request when its previous one ends (today's decode cells). */
  | { model: 'closed'; concurrency: number }
  /** One session per arrival at `rate` req/s over the level's horizon. */
  | { model: 'open'; rate: number; arrival: ArrivalKind; burstiness?: number }
  /** One session per trace line at its timestamp, replayed timeScale times faster. */
  | { model: 'trace'; timeScale: number; timestampsMs: readonly number[] };

export interface LevelSpec {
  runId: string;
  /** The run's seed: with the row and the rate it seeds the arrivals; with the row, lengths and think times. */
  seed: number;
  /** The row: the context for `fixed` ("8192"), else the workload's row name. */
  row: string;
  /** The level's key (one per level of a run): prompts of two levels or two runs share no text. */
  key: string;
  load: LoadModel;
  /** Open: arrivals are scheduled over [0, horizonMs), the warm-up and the window. */
  horizonMs?: number;
  workload: LoadedWorkload;
  maxOutput: number;
  /** `fixed`: the row's context. */
  contextTokens?: number;
  maxModelLen?: number;
}

export interface RequestPlan {
  /** Arrival index in the level (0-based), unique: the split key for workers and agents. */
  index: number;
  /** 1-based; for closed loops the slot. */
  session: number;
  /** 1-based: the session's k-th request; multi-turn: the turn within its conversation. */
  turn: number;
  /** Multi-turn: the conversation (1-based, unique in the level); a closed session holds one after another. */
  conversation?: number;
  /** Scheduled offset (ms) from the level's start (open, trace: a session's first turn); absent: when free. */
  atMs?: number;
  /** Wait after the previous turn's end before this one (multi-turn). */
  thinkMs?: number;
  prompt: PromptRecipe;
  /** The whole prompt's tokens the workload aims at (multi-turn: the conversation's content). */
  inputTokens: number;
  maxOutput: number;
  /** Prompt tokens the workload made cacheable (expected prefix-cache hits). */
  cacheableTokens: number;
}

export interface LevelPlan {
  /** Sessions: N (closed), arrivals in the horizon (open), lines (trace). */
  readonly sessions: number;
  /** Requests per session; undefined where unbounded (closed: a session runs until the level closes). */
  readonly turnsPerSession: number | undefined;
  /** Each session's scheduled start (ms from the level's start), session s at [s - 1]; closed: none. */
  readonly startsMs: readonly number[] | undefined;
  /** The index of a session's k-th request (both 1-based). */
  indexOf(session: number, k: number): number;
  /** The request at an index: any index on a closed level, below sessions x turnsPerSession otherwise. */
  plan(index: number): RequestPlan;
  /** One session's requests in order; unbounded on a closed level (take what the level runs). */
  sessionPlans(session: number): Generator<RequestPlan>;
  /** Every request in index order (open and trace levels). */
  all(): RequestPlan[];
}

/** The sessions this executor runs (1-based numbers): session s goes to executor (s - 1) mod executors. */
export function sessionsFor(executor: number, executors: number, sessions: number): number[] {
  const out: number[] = [];
  for (let s = executor + 1; s <= sessions; s += executors) out.push(s);
  return out;
}

export function planLevel(spec: LevelSpec): LevelPlan {
  const source = workloadRequests(spec.workload, {
    seed: spec.seed,
    row: spec.row,
    salt: `${spec.runId}|${spec.key}`,
    maxOutput: spec.maxOutput,
    ...(spec.contextTokens !== undefined ? { contextTokens: spec.contextTokens } : {}),
    ...(spec.maxModelLen !== undefined ? { maxModelLen: spec.maxModelLen } : {}),
  });
  const load = spec.load;
  if (load.model === 'closed') return closedLevel(spec, load.concurrency, source);
  const starts =
    load.model === 'open'
      ? arrivalOffsets(
          {
            kind: load.arrival,
            rate: load.rate,
            ...(load.burstiness !== undefined ? { burstiness: load.burstiness } : {}),
          },
          horizonOf(spec),
          arrivalSeed(spec.seed, spec.row, load.rate),
        )
      : traceSchedule(load.timestampsMs, load.timeScale);
  return scheduledLevel(spec, starts, source);
}

// A request of the workload as the turn of a session (base: where it sits in the level).
function withTurn(r: WorkloadRequest, base: Omit<RequestPlan, keyof WorkloadRequest>): RequestPlan {
  return {
    ...base,
    ...(r.thinkMs !== undefined ? { thinkMs: r.thinkMs } : {}),
    prompt: r.prompt,
    inputTokens: r.inputTokens,
    maxOutput: r.maxOutput,
    cacheableTokens: r.cacheableTokens,
  };
}

// A closed level: n sessions at once, each unbounded; request i is session (i mod n) + 1's k-th.
function closedLevel(spec: LevelSpec, n: number, source: WorkloadRequests): LevelPlan {
  if (!(Number.isInteger(n) && n >= 1))
    throw new BenchError('USAGE', `concurrency ${n}: a closed loop needs at least one session`);
  const plan = (index: number): RequestPlan => closedPlan(spec, n, source, index);
  return {
    sessions: n,
    turnsPerSession: undefined,
    startsMs: undefined,
    indexOf: (session, k) => (k - 1) * n + (session - 1),
    plan,
    *sessionPlans(session) {
      for (let k = 1; ; k++) yield plan((k - 1) * n + (session - 1));
    },
    all() {
      throw new BenchError('INTERNAL', 'a closed level has unbounded sessions: take them by session');
    },
  };
}

function closedPlan(spec: LevelSpec, n: number, source: WorkloadRequests, index: number): RequestPlan {
  const kind = spec.workload.spec.kind;
  const session = (index % n) + 1;
  const k = Math.floor(index / n) + 1;
  if (kind === 'fixed') {
    const c = spec.contextTokens!;
    // The slot re-sends its one prompt (docs/method.md "Prompts"): after its first turn all of it is cached.
    return {
      index,
      session,
      turn: k,
      prompt: { kind: 'slot', contextTokens: c, slot: session },
      inputTokens: c,
      maxOutput: spec.maxOutput,
      cacheableTokens: k > 1 ? c : 0,
    };
  }
  if (kind !== 'multi-turn') return withTurn(source.request(index), { index, session, turn: k });
  // Conversations back to back: the c-th of session s is the level's conversation (c - 1) n + s.
  const turns = source.turns;
  const c = Math.floor((k - 1) / turns);
  const item = c * n + (session - 1);
  const turn = ((k - 1) % turns) + 1;
  return withTurn(source.request(item, turn), { index, session, turn, conversation: item + 1 });
}

// An open or trace level: one session per start, each the workload's turns; its first turn at its start.
function scheduledLevel(spec: LevelSpec, starts: readonly number[], source: WorkloadRequests): LevelPlan {
  const turns = source.turns;
  const multiTurn = spec.workload.spec.kind === 'multi-turn';
  const total = starts.length * turns;
  const plan = (index: number): RequestPlan => {
    if (!(Number.isInteger(index) && index >= 0 && index < total))
      throw new BenchError('INTERNAL', `request ${index} of a level of ${total}`);
    const item = Math.floor(index / turns);
    const turn = (index % turns) + 1;
    return withTurn(source.request(item, turn), {
      index,
      session: item + 1,
      turn,
      ...(multiTurn ? { conversation: item + 1 } : {}),
      ...(turn === 1 ? { atMs: starts[item]! } : {}),
    });
  };
  return {
    sessions: starts.length,
    turnsPerSession: turns,
    startsMs: starts,
    indexOf: (session, k) => (session - 1) * turns + (k - 1),
    plan,
    *sessionPlans(session) {
      for (let k = 1; k <= turns; k++) yield plan((session - 1) * turns + (k - 1));
    },
    all: () => Array.from({ length: total }, (_, i) => plan(i)),
  };
}

function horizonOf(spec: LevelSpec): number {
  const h = spec.horizonMs;
  if (h === undefined || !(h > 0))
    throw new BenchError('INTERNAL', 'an open level needs its horizon (warm-up and window) in ms');
  return h;
}
