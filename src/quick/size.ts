// `quick` sizes its plan from the server's own speed (docs/quick.md): one short request gives the decode rate of one
// user and a rough prefill rate; the plan then fits the budget (about a minute) with windows long enough that a
// request ends a few times in each, and a second, longer context only where its prefill is cheap. Pure.

import { TEMPLATE_MARGIN_TOKENS } from '../plan/contexts.js';

export interface ServerSpeed {
  tokensPerS: number; // one request's decode rate
  ttftMs: number; // its first token, a cold prompt of promptTokens
  promptTokens: number;
}

export interface QuickPlan {
  contexts: number[];
  concurrency: number[];
  maxOutput: number;
  duration: number; // seconds per window
  estimateS: number;
}

export const QUICK_BUDGET_S = 60;
const LADDER = [1, 2, 4, 8, 16, 32];
const CELL_OVERHEAD_S = 1.5; // warm-up, ramp and settle around each window
const MIN_WINDOW_S = 1;
const MAX_WINDOW_S = 10;
const SHORT_CONTEXT = 4096;
const LONG_CONTEXTS = [32_768, 16_384, 8192];

const fits = (c: number, maxOutput: number, maxModelLen: number | undefined) =>
  maxModelLen === undefined || c + maxOutput + TEMPLATE_MARGIN_TOKENS <= maxModelLen;

export function sizeQuickPlan(
  speed: ServerSpeed,
  o: { budgetS?: number; maxModelLen?: number } = {},
): QuickPlan {
  const budget = o.budgetS ?? QUICK_BUDGET_S;
  const rate = Math.max(1, speed.tokensPerS);
  // Prompt tokens over the first token: a lower bound of the prefill rate (it holds the request's overhead too).
  const prefillRate = Math.max(100, (speed.promptTokens * 1000) / Math.max(1, speed.ttftMs));
  const short = fits(SHORT_CONTEXT, 256, o.maxModelLen) ? SHORT_CONTEXT : 1024;
  let ladder = [...LADDER];
  let contexts = [short];
  const prefillS = (ctxs: number[]) =>
    ctxs.reduce((s, c) => s + (c * ladder[ladder.length - 1]!) / prefillRate, 0);
  const windowFor = (ctxs: number[]) =>
    (budget - prefillS(ctxs)) / (ctxs.length * ladder.length) - CELL_OVERHEAD_S;
  // A longer context joins when its slots prefill in a sixth of the budget and the windows stay at 3 s or more.
  for (const long of LONG_CONTEXTS) {
    const withLong = [short, long];
    if (
      long > short &&
      fits(long, 256, o.maxModelLen) &&
      (long * ladder.at(-1)!) / prefillRate <= budget / 6 &&
      windowFor(withLong) >= 3
    ) {
      contexts = withLong;
      break;
    }
  }
  while (ladder.length > 3 && windowFor(contexts) < 2) ladder = ladder.slice(0, -1);
  const duration = Math.round(Math.min(MAX_WINDOW_S, Math.max(MIN_WINDOW_S, windowFor(contexts))) * 10) / 10;
  // Answers that end about eight times a window for one user: at 8 users some 70 requests, enough to judge a
  // 90% share by count (docs/method.md "Service level").
  const maxOutput = Math.min(1024, Math.max(16, Math.round((rate * duration) / 8 / 16) * 16));
  const estimateS = Math.round(
    prefillS(contexts) + contexts.length * ladder.length * (duration + CELL_OVERHEAD_S),
  );
  return { contexts, concurrency: ladder, maxOutput, duration, estimateS };
}
