import { z } from 'zod';
import { ERROR_KINDS } from '../failures/kinds.js';

// One line of requests.jsonl (docs/result-schema.md "requests.jsonl"), declared once: the runner writes it, the
// workers and the agents carry what it is built from, readRequestLines validates it on the way back. Enough to
// recompute every figure of its cell or level (docs/method.md "Figures of a cell").

// When a request was sent: a prefill point, a cell's warm-up, its ramp or its window (a level: scheduled in its
// warm-up, or in its window).
export const REQUEST_PHASES = ['prefill', 'warmup', 'ramp', 'window'] as const;
export const TOKEN_COUNT_SOURCES = [
  'continuous_usage',
  'final_usage',
  'tokenize',
  'estimate',
  'none',
] as const;

const ms = z.number().finite(); // epoch ms on the run's clock (the coordinator's, over agents)
const count = z.number().int().nonnegative();

export const RequestLine = z.object({
  cell: z.string(), // "prefill 8192" | "decode 8192x4" | "connect" | a level's key
  phase: z.enum(REQUEST_PHASES),
  contextTokens: count,
  concurrency: z.number().int().positive().optional(),
  repeat: z.number().int().positive().optional(), // 1..R when the cell was measured R > 1 times (--repeats)
  slot: count,
  requestId: z.string(),
  sentAtMs: ms, // the request's bytes went to the socket (TTFT starts here)
  calledAtMs: ms.optional(), // the client was asked to send (before undici's deferred write)
  // Sent twice: the first write, on a reused connection, met this close before a byte of answer; sentAtMs is the
  // second write's, on a new connection.
  firstSentAtMs: ms.optional(),
  resentAfter: z.string().optional(),
  firstTokenAtMs: ms.optional(),
  endAtMs: ms,
  // [time, tokens] of each token-bearing chunk: in the file the time is ms after sentAtMs, in memory epoch ms.
  chunks: z.array(z.tuple([ms, count])),
  outputTokens: count,
  reasoningTokens: count.optional(),
  promptTokens: count.optional(),
  cachedTokens: count.optional(), // served from the server's prefix cache, as its usage says
  tokenCountSource: z.enum(TOKEN_COUNT_SOURCES),
  chunkAttribution: z.enum(['exact', 'estimated']).optional(), // which chunk carried which token
  unpinnedTokens: count.optional(), // tokens placed by the character split, when estimated
  finishReason: z.string().optional(),
  status: z.enum(['ok', 'error']),
  errorKind: z.enum(ERROR_KINDS).optional(),
  httpStatus: z.number().int().optional(),
  error: z.string().optional(),
  // A session's request (docs/result-schema.md "requests.jsonl"): when the schedule said to send it, when the in-flight cap let it go
  // (absent without a cap), which session and turn it was, the load level, and the workload's targets.
  scheduledAtMs: ms.optional(),
  releasedAtMs: ms.optional(),
  session: z.number().int().positive().optional(),
  turn: z.number().int().positive().optional(),
  level: z.string().optional(),
  inputTarget: count.optional(), // the workload's input tokens for the whole prompt
  cacheableTokens: count.optional(), // prompt tokens the workload made cacheable (expected prefix-cache hits)
});
export type RequestLine = z.infer<typeof RequestLine>;
export type RequestPhase = RequestLine['phase'];

// What the sender knows of a request before it is sent, under the line's own names: the runner, the workers and
// the agents tag each request with it, and toRequestLine copies it as is.
export const RequestTag = RequestLine.pick({
  cell: true,
  phase: true,
  contextTokens: true,
  concurrency: true,
  slot: true,
  scheduledAtMs: true,
  releasedAtMs: true,
  session: true,
  turn: true,
  level: true,
  inputTarget: true,
  cacheableTokens: true,
});
export type RequestTag = z.infer<typeof RequestTag>;
