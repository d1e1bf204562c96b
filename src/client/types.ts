import type { ErrorKind, FailureReason } from '../failures/kinds.js';

export type { ErrorKind, FailureReason };

// A failed request is data, not an exception (docs/architecture.md "Conventions").
export interface RequestError {
  kind: ErrorKind;
  status?: number; // HTTP status (http_status), or the one an in-stream error body carries
  message: string; // never contains the API key
  type?: string; // the engine's error body `type` / TGI `error_type`
  code?: string | number; // the engine's error body `code`
  reason?: FailureReason; // what the engine's error means (src/failures/classify.ts), decided once here
}

// One timed stream. Times are ms on the caller's clock (src/clock.ts nowMs, epoch ms, by default),
// taken when bytes arrived, before parsing (docs/method.md "Vocabulary").
export interface RequestRecord {
  calledAtMs?: number; // streamRequest was called
  sentAtMs: number; // the request's bytes went to the socket (TTFT starts here); calledAtMs if never written
  // Sent twice: its first write, on a reused connection, got no byte before the close (`reason`); sentAtMs
  // is the second write's, on a new connection (docs/performance.md "Connections the server closes").
  resent?: { firstSentAtMs: number; reason: string };
  headersAtMs?: number;
  firstTokenAtMs?: number; // first token-bearing delta, never a role-only chunk
  endAtMs: number;
  // [arrivalMs, tokens] for every token-bearing chunk; tokens exact per the counting rule.
  chunks: Array<[number, number]>;
  outputTokens: number;
  tokenCountSource: 'continuous_usage' | 'final_usage' | 'tokenize' | 'estimate' | 'none';
  reasoningTokens?: number; // tokens that arrived in reasoning fields, where distinguishable
  reasoningTokensSource?: 'usage' | 'chunks'; // the server's completion_tokens_details, or the chunks' counts
  // Per-chunk counts: exact (continuous usage, one token per chunk, or pinned by the tokenizer after the
  // cell) or estimated (a request total split by characters); unpinnedTokens bounds the error.
  chunkAttribution?: 'exact' | 'estimated';
  unpinnedTokens?: number;
  maxGapMs?: number; // largest gap between consecutive token-bearing chunks (two or more chunks)
  stalls?: number; // gaps of at least max(1 s, 10 x the median gap) (src/client/decode/gaps.ts)
  chunkTexts?: string[]; // each chunk's text, when asked (keepChunkTexts), to pin counts after the cell
  promptTokens?: number; // usage.prompt_tokens
  cachedTokens?: number; // usage.prompt_tokens_details.cached_tokens
  finishReason?: string;
  ok: boolean;
  error?: RequestError;
  text?: string; // only when asked for (tokenize fallback, tests)
}
