// Phase timeouts: connect, first token scaled to prompt size, idle between token chunks.
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/**
 * First-token deadline for a prompt: 60 s plus 1 ms per prompt token, i.e. it assumes a prefill no slower
 * than 1,000 tok/s (1M tokens -> ~17.5 min). Headers are covered by it too: llama.cpp sends none while a
 * request waits for a slot (docs/engines.md), so queueing must not look like a connect failure.
 */
export function firstTokenTimeoutMs(promptTokens: number): number {
  const p = Number.isFinite(promptTokens) && promptTokens > 0 ? promptTokens : 0;
  return 60_000 + Math.ceil(p);
}
