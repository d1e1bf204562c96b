// `quick` sizes its plan from the server's own speed (docs/quick.md): one short request gives the decode rate of one
// user and a rough prefill rate; the plan then fits the budget (about a minute) with windows long enough that a
// request ends many times in each, and a second, longer context only where its prefill is cheap. The plan is built
// as the runner builds it (buildPlan), so cells Over capacity are out of the windows' budget and of the estimate.
// Pure.

import type { KvBound } from '../plan/capacity.js';
import type { KvLayout } from '../engines/index.js';
import { TEMPLATE_MARGIN_TOKENS } from '../plan/contexts.js';
import { estimateDuration } from '../plan/estimate.js';
import { buildPlan, type Plan } from '../plan/plan.js';
import { fitPrefillModel, priorPrefillModel, type PrefillModel } from '../plan/prefill-model.js';

export interface ServerSpeed {
  tokensPerS: number; // one request's decode rate
  ttftMs: number; // its first token, a cold prompt of promptTokens
  promptTokens: number;
}

// What the server told the probe, and what the user fixed with quick's flags (the rest is sized).
export interface QuickSizing {
  budgetS?: number;
  maxModelLen?: number;
  kvCapacityTokens?: number;
  kvCapacityBound?: KvBound;
  kvLayout?: KvLayout; // split llama.cpp slots, Ollama's contexts: the plan runs what the server would queue
  engine?: string; // picks the prefill prior the speed request scales
  concurrency?: number[]; // --concurrency
  maxOutput?: number; // --max-output
  duration?: number; // --duration
  repeats?: number; // --repeats
}

export interface QuickPlan {
  contexts: number[];
  concurrency: number[];
  maxOutput: number;
  answers: 'sized' | 'shortest' | 'given'; // sized to the window; the shortest quick sends; --max-output
  duration: number; // seconds per window
  repeats: number;
  prefillRepeats: number;
  plan: Plan; // as the runner builds it: which cells run, which are Over capacity
  estimateS: number; // of this plan: the cells that run, their windows, warm-ups and prefills
  perWindow: number; // answers one user ends in a window at the measured rate
}

export const QUICK_BUDGET_S = 60;
const LADDER = [1, 2, 4, 8, 16, 32];
const CELL_OVERHEAD_S = 1.5; // warm-up, ramp and settle around each window
const MIN_WINDOW_S = 1;
const MAX_WINDOW_S = 10;
const SHORT_CONTEXT = 4096;
const LONG_CONTEXTS = [32_768, 16_384, 8192];
const PREFILL_REPEATS = 3; // the run's default: compare judges a prefill point by its spread
const GUESS_OUTPUT = 256; // answers before they are sized, to choose contexts and levels
// Answers one user ends in a window. A level where requests queue is judged by count alone (the margins test
// assumes one kind of request; docs/method.md "Service level"), and the count needs 35 requests that all met a
// 90% share: 8 users of whom 4 run at once (the first level to queue after 4 ran together) send 8 at the ramp
// and end about 4 x 12 = 48 in the window. Fewer a window left 8 users "too close to call" at 32 requests.
export const ANSWERS_PER_WINDOW = 12;
// The shortest answer quick asks for: a request's decode rate needs tokens after its first chunk.
export const SHORTEST_ANSWER = 16;
const LONGEST_ANSWER = 1024;

const fits = (c: number, maxOutput: number, maxModelLen: number | undefined) =>
  maxModelLen === undefined || c + maxOutput + TEMPLATE_MARGIN_TOKENS <= maxModelLen;

// Round figures: 16s from 128 tokens up, 4s below (16s there made 24-token answers 16 and a window end 13 a user).
function roundAnswer(tokens: number): number {
  const step = tokens >= 128 ? 16 : 4;
  return Math.min(LONGEST_ANSWER, Math.max(SHORTEST_ANSWER, Math.round(tokens / step) * step));
}

// The plan, its estimate and the window that fills the budget, for one server's speed and quick's flags.
interface Sizer {
  budget: number;
  repeats: number;
  rate: number; // one user's decode rate, tokens/s
  planOf: (contexts: number[], concurrency: number[], maxOutput: number) => Plan;
  estimate: (plan: Plan, duration: number) => ReturnType<typeof estimateDuration>;
  windowOf: (plan: Plan) => number;
  prefillOf: (plan: Plan, context: number) => number;
}

function sizerOf(speed: ServerSpeed, o: QuickSizing): Sizer {
  const budget = o.budgetS ?? QUICK_BUDGET_S;
  const repeats = o.repeats ?? 1;
  // The first token of a cold prompt scales the engine's prior (it holds the request's overhead too: a bound).
  const prefill: PrefillModel = fitPrefillModel(
    [{ tokens: speed.promptTokens, seconds: Math.max(1, speed.ttftMs) / 1000 }],
    priorPrefillModel(o.engine),
  );
  const planOf = (contexts: number[], concurrency: number[], maxOutput: number) =>
    buildPlan({
      contexts,
      prefillContexts: contexts,
      concurrency,
      maxOutput,
      ...(o.maxModelLen !== undefined ? { maxModelLen: o.maxModelLen } : {}),
      ...(o.kvCapacityTokens !== undefined
        ? { kvCapacityTokens: o.kvCapacityTokens, kvCapacityBound: o.kvCapacityBound ?? 'exact' }
        : {}),
      ...(o.kvLayout ? { kvLayout: o.kvLayout } : {}),
    });
  const estimate = (plan: Plan, duration: number) =>
    estimateDuration(plan, {
      duration,
      prefillRepeats: PREFILL_REPEATS,
      repeats,
      cellOverheadS: CELL_OVERHEAD_S,
      prefill,
    });
  // The window that fills the budget with the cells that run (Over capacity ones cost nothing).
  const windowOf = (plan: Plan) => {
    const cells = plan.cells.filter((c) => c.status === 'run').length;
    return cells ? (budget - estimate(plan, 0).totalS) / (cells * repeats) : MAX_WINDOW_S;
  };
  const prefillOf = (plan: Plan, context: number) =>
    estimate(plan, 0)
      .steps.filter((s) => s.contextTokens === context)
      .reduce((t, s) => t + s.estimateS - s.fixedS, 0);
  return { budget, repeats, rate: Math.max(1, speed.tokensPerS), planOf, estimate, windowOf, prefillOf };
}

// 4K where the model window holds it and the prompts of the fewest levels quick runs prefill in half the budget
// (a CPU at 250 tok/s: 1K); a longer context joins when its slots prefill in a sixth of the budget and the windows
// stay at 3 s or more.
function contextsOf(s: Sizer, ladder: number[], guess: number, maxModelLen: number | undefined): number[] {
  const short =
    fits(SHORT_CONTEXT, guess, maxModelLen) &&
    s.prefillOf(s.planOf([SHORT_CONTEXT], ladder.slice(0, 3), guess), SHORT_CONTEXT) <= s.budget / 2
      ? SHORT_CONTEXT
      : 1024;
  for (const long of LONG_CONTEXTS) {
    if (long <= short || !fits(long, guess, maxModelLen)) continue;
    const plan = s.planOf([short, long], ladder, guess);
    if (s.prefillOf(plan, long) <= s.budget / 6 && s.windowOf(plan) >= 3) return [short, long];
  }
  return [short];
}

const clampWindow = (w: number) => Math.round(Math.min(MAX_WINDOW_S, Math.max(MIN_WINDOW_S, w)) * 10) / 10;

// Answers sized to the budget's window: which cells fit the KV cache depends on them, and the window on which
// cells run, so a few rounds settle both. A window given by --duration lengthens the window, not the answers.
function answersAndWindow(
  s: Sizer,
  contexts: number[],
  ladder: number[],
  guess: number,
  given: number | undefined,
): { maxOutput: number; window: number } {
  let maxOutput = guess;
  let window = clampWindow(s.windowOf(s.planOf(contexts, ladder, maxOutput)));
  if (given === undefined)
    for (let i = 0; i < 4; i++) {
      const next = roundAnswer((s.rate * window) / ANSWERS_PER_WINDOW);
      const nextWindow = clampWindow(s.windowOf(s.planOf(contexts, ladder, next)));
      const settled = next === maxOutput;
      maxOutput = next;
      window = nextWindow;
      if (settled) break;
    }
  return { maxOutput, window };
}

export function sizeQuickPlan(speed: ServerSpeed, o: QuickSizing = {}): QuickPlan {
  const s = sizerOf(speed, o);
  const guess = o.maxOutput ?? GUESS_OUTPUT;
  let ladder = o.concurrency ? [...o.concurrency].sort((a, b) => a - b) : [...LADDER];
  const contexts = contextsOf(s, ladder, guess, o.maxModelLen);
  if (!o.concurrency)
    while (ladder.length > 3 && s.windowOf(s.planOf(contexts, ladder, guess)) < 2)
      ladder = ladder.slice(0, -1);
  const { maxOutput, window } = answersAndWindow(s, contexts, ladder, guess, o.maxOutput);
  const duration = o.duration ?? window;
  const plan = s.planOf(contexts, ladder, maxOutput);
  const sized = (s.rate * window) / ANSWERS_PER_WINDOW;
  return {
    contexts,
    concurrency: ladder,
    maxOutput,
    answers: o.maxOutput !== undefined ? 'given' : sized < SHORTEST_ANSWER ? 'shortest' : 'sized',
    duration,
    repeats: s.repeats,
    prefillRepeats: PREFILL_REPEATS,
    plan,
    estimateS: Math.round(s.estimate(plan, duration).totalS),
    perWindow: (s.rate * duration) / maxOutput,
  };
}
