import type { ErrorCode } from '../../errors.js';
import { sleep, type Clock } from '../../clock.js';
import { planLevel, type RequestPlan } from '../../load/sessions.js';
import type { RequestPhase } from '../../results/request-line.js';
import { fatalCode } from './fatal.js';
import type { InFlightCap } from './in-flight-cap.js';
import type { PlanPrompts } from './plan-prompts.js';
import type { DriveSpec } from './runner.js';
import type { Sender, SendSpec, Sent } from './sender.js';
import { ALL, sessionsIn } from './share.js';

// The session loop (docs/workloads.md "Sessions"), on the main thread, in workers and on agents alike: a session
// waits for its start, sends its turns one after another (each when the previous one has ended, after its think
// time), keeps a conversation's answers for its next turn, backs off after an error, and stops at the close. A
// closed level's session starts at once and runs until the close (docs/method.md "Sustained decode cell": re-send
// at once after a success or an abort); a scheduled level's starts at its arrival, on absolute times of the clock,
// never "sleep after work". Which errors stop the level is the caller's decision (onError), since an error limit
// counts across all sessions.
export interface ShareHooks {
  closing(): boolean; // the level has closed: no new turn
  windowOpen(): boolean; // a closed level's window is open: its requests from now on are window requests
  onFirstToken(session: number, atMs: number): void;
  onSent(s: Sent): void;
  // Returns true when this session must stop (fatal error or error limit).
  onError(s: Sent, fatal: ErrorCode | undefined): boolean;
}

export interface ShareContext {
  sender: Sender;
  clock: Clock;
  spec: DriveSpec;
  prompts: PlanPrompts;
  inflight: AbortSignal; // aborts every request in flight: the close
  early: AbortSignal; // the level ends early (fatal, error limit, interrupt): waits stop
  zeroMs: number; // the level's zero on this clock: a session's start is zeroMs + its offset
  cap?: InFlightCap;
}

// Bounds the closed loop against a server that fails instantly: the cell stops (Failed) after this many errors
// across all its sessions.
export const errorLimit = (n: number): number => Math.max(10, 2 * n);

export const backoffMs = (consecutive: number): number => Math.min(1000, 25 * 2 ** Math.min(consecutive, 6));

// Waits until an instant of the clock (at once when it has passed), never less and as little more as the loop
// allows. A real timer fires up to about a millisecond early or late (libuv counts the loop's time in whole
// milliseconds from the start of its turn, and a poll sleeps at least one), so it is set the clock's slack early
// and the rest is waited out on the loop's turns. Those turns number thousands per millisecond on an idle loop, so
// each is one Immediate and nothing else: a promise per turn made a scavenge every 200 ms at 100 arrivals/s, and
// those pauses were the lag's tail. docs/performance.md "Keeping to a schedule" has the figures. A virtual
// clock's timer runs at its instant exactly, and it has no slack.
async function sleepUntil(clock: Clock, atMs: number, signal: AbortSignal): Promise<void> {
  await sleep(clock, atMs - (clock.timerSlackMs ?? 0) - clock.now(), signal);
  if (signal.aborted || clock.now() >= atMs) return;
  await new Promise<void>((resolve) => {
    const turn = (): void => {
      if (signal.aborted || clock.now() >= atMs) resolve();
      else setImmediate(turn);
    };
    setImmediate(turn);
  });
}

// How long before its arrival a session starts: time to build its first prompt, so that it is sent on time.
const PREPARE_MS = 20;

/** Runs this runner's sessions to their end: all at once (closed), or each at its start (scheduled). */
export async function runShare(ctx: ShareContext, hooks: ShareHooks): Promise<void> {
  const plan = planLevel(ctx.spec.level);
  const sessions = sessionsIn(ctx.spec.share ?? ALL, plan.sessions);
  const starts = plan.startsMs;
  if (!starts) {
    await Promise.all([...sessions].map((s) => runSession(s, plan.sessionPlans(s), ctx, hooks)));
    return;
  }
  // One timer at a time, whatever the arrivals: sessions are numbered in time order (src/load), and each waits
  // for its own first turn only once it is due.
  const closeAt = ctx.spec.window ? ctx.zeroMs + ctx.spec.window.closeAfterMs : Infinity;
  const running: Array<Promise<void>> = [];
  for (const s of sessions) {
    const at = ctx.zeroMs + starts[s - 1]!;
    if (at >= closeAt) break;
    await sleep(ctx.clock, at - PREPARE_MS - ctx.clock.now(), ctx.early); // ahead of time: a timer is close enough
    if (hooks.closing() || ctx.early.aborted) break;
    running.push(runSession(s, plan.sessionPlans(s), ctx, hooks));
  }
  await Promise.all(running);
}

// A scheduled level's window on this clock (docs/workloads.md "How a level's sessions run"); closed: none.
interface LevelWindow {
  openMs: number;
  closeMs: number;
}

function windowOf(ctx: ShareContext): LevelWindow | undefined {
  const w = ctx.spec.window;
  return w && { openMs: ctx.zeroMs + w.openAfterMs, closeMs: ctx.zeroMs + w.closeAfterMs };
}

// One session's conversation (multi-turn): the answers kept for its next turn, and its history against the
// workload's count, which takes every answer at its cap: the tokens the answers fell short by, and one more when
// the last one ended at the cap (its last token is never computed, so never cached: docs/workloads.md "Cacheable
// tokens"). One per session, reset in place at each new conversation.
interface Conversation {
  id: number | undefined;
  answers: string[];
  broken: boolean; // a turn of this conversation failed: its later turns have no history to send
  shortfall: number;
  cacheableLess: number;
}

// Enters the plan's conversation (a new one starts empty); false: its conversation broke, so the turn is skipped.
function enterConversation(conv: Conversation, plan: RequestPlan): boolean {
  if (plan.conversation === conv.id) return !conv.broken;
  conv.id = plan.conversation;
  conv.answers = [];
  conv.broken = false;
  conv.shortfall = 0;
  conv.cacheableLess = 0;
  return true;
}

// Keeps what a sent turn leaves for the next one: its answer's shortfall and its text.
function keepAnswer(conv: Conversation, plan: RequestPlan, record: Sent['record']): void {
  if (conv.id !== undefined) {
    const out = record.outputTokens;
    conv.shortfall += Math.max(0, plan.maxOutput - out);
    conv.cacheableLess = conv.shortfall + (out >= plan.maxOutput ? 1 : 0);
  }
  if (record.text !== undefined) {
    conv.answers.push(record.text); // the next turn's history, on this thread only (plainSent drops it)
    delete record.text;
  }
}

// A turn's instant: its arrival, or its think time after the previous turn's end; undefined: at once.
function scheduledAtOf(plan: RequestPlan, zeroMs: number, endedAtMs: number | undefined): number | undefined {
  if (plan.atMs !== undefined) return zeroMs + plan.atMs;
  if (plan.thinkMs !== undefined && endedAtMs !== undefined) return endedAtMs + plan.thinkMs;
  return undefined;
}

function phaseOf(window: LevelWindow | undefined, atMs: number, hooks: ShareHooks): RequestPhase {
  if (window) return atMs >= window.openMs ? 'window' : 'warmup';
  return hooks.windowOpen() ? 'window' : 'ramp';
}

// Reports a session's first token once, whatever its turns: the caller counts sessions that have streamed.
function firstTokenOnce(session: number, hooks: ShareHooks): (atMs: number) => void {
  let seen = false;
  return (atMs) => {
    if (seen) return;
    seen = true;
    hooks.onFirstToken(session, atMs);
  };
}

function sendSpecOf(
  ctx: ShareContext,
  session: number,
  plan: RequestPlan,
  phase: RequestPhase,
  onFirstToken: (atMs: number) => void,
  cacheableLess: number,
  scheduledAtMs: number | undefined,
  releasedAtMs: number | undefined,
): SendSpec {
  const { spec } = ctx;
  const load = spec.level.load;
  return {
    cell: spec.cell,
    phase,
    contextTokens: plan.inputTokens,
    ...(load.model === 'closed' ? { concurrency: load.concurrency } : {}),
    slot: session,
    maxOutput: plan.maxOutput,
    signal: ctx.inflight,
    firstTokenTimeoutMs: spec.firstTokenTimeoutMs,
    onFirstToken,
    ...(spec.tagSessions
      ? {
          session,
          turn: plan.turn,
          level: spec.level.key,
          inputTarget: plan.inputTokens,
          cacheableTokens: Math.max(0, plan.cacheableTokens - (plan.turn > 1 ? cacheableLess : 0)),
          ...(scheduledAtMs !== undefined ? { scheduledAtMs } : {}),
          ...(releasedAtMs !== undefined ? { releasedAtMs } : {}),
        }
      : {}),
  };
}

async function runSession(
  session: number,
  plans: Iterable<RequestPlan>,
  ctx: ShareContext,
  hooks: ShareHooks,
): Promise<void> {
  const { clock, early } = ctx;
  const window = windowOf(ctx);
  const onFirstToken = firstTokenOnce(session, hooks);
  const conv: Conversation = { id: undefined, answers: [], broken: false, shortfall: 0, cacheableLess: 0 };
  let consecutive = 0;
  let endedAtMs: number | undefined;
  for (const plan of plans) {
    if (!enterConversation(conv, plan)) continue;
    if (consecutive > 0) await sleep(clock, backoffMs(consecutive), early);
    if (hooks.closing()) return;
    const scheduledAtMs = scheduledAtOf(plan, ctx.zeroMs, endedAtMs);
    if (window && scheduledAtMs !== undefined && scheduledAtMs >= window.closeMs) return;
    // The text before the wait: building a long prompt at the scheduled instant would make the send late by it.
    const prompt = await ctx.prompts(plan, conv.answers);
    if (scheduledAtMs !== undefined) {
      await sleepUntil(clock, scheduledAtMs, early);
      if (hooks.closing() || early.aborted) return;
    }
    let releasedAtMs: number | undefined;
    if (ctx.cap) {
      if (!(await ctx.cap.acquire(AbortSignal.any([ctx.inflight, early])))) return;
      releasedAtMs = clock.now();
    }
    const at = scheduledAtMs ?? clock.now();
    if (window && at >= window.closeMs) {
      ctx.cap?.release();
      return;
    }
    const phase = phaseOf(window, at, hooks);
    const send = sendSpecOf(
      ctx,
      session,
      plan,
      phase,
      onFirstToken,
      conv.cacheableLess,
      scheduledAtMs,
      releasedAtMs,
    );
    let s: Sent;
    try {
      s = await ctx.sender.send(send, { prompt, keepText: plan.prompt.kind === 'turn' });
    } finally {
      ctx.cap?.release();
    }
    endedAtMs = s.record.endAtMs;
    keepAnswer(conv, plan, s.record);
    hooks.onSent(s);
    const kind = s.record.error?.kind;
    if (s.record.ok || kind === 'aborted') {
      consecutive = 0;
      continue;
    }
    conv.broken = conv.id !== undefined;
    consecutive += 1;
    if (hooks.onError(s, fatalCode(s.record))) return;
  }
}
