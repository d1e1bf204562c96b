// Context and concurrency lists of the matrix (docs/method.md "Plan").

// Tokens kept free for the chat template around a decode prompt.
export const TEMPLATE_MARGIN_TOKENS = 1024;
// The prefill-only "full window" point sits this far below maxModelLen (seeds: 1048576 - 256, labelled 1024K).
export const FULL_WINDOW_RESERVE_TOKENS = 256;
export const FIRST_CONTEXT_TOKENS = 8192;
export const DEFAULT_CONCURRENCY: readonly number[] = [1, 2, 4, 8, 16, 32, 64, 128];

// 8K, 16K, ... doubling while C + maxOutput + margin <= maxModelLen, then the largest that fits (1K-aligned).
export function decodeContexts(maxModelLen: number, maxOutput: number): number[] {
  const out: number[] = [];
  const room = maxModelLen - maxOutput - TEMPLATE_MARGIN_TOKENS;
  for (let c = FIRST_CONTEXT_TOKENS; c <= room; c *= 2) out.push(c);
  const largest = Math.floor(room / 1024) * 1024;
  if (largest > 0 && !out.includes(largest)) out.push(largest);
  return out;
}

// Every decode context plus the full window (maxModelLen - 256), which gets a prefill point of its own.
export function prefillContexts(maxModelLen: number | undefined, decode: readonly number[]): number[] {
  const set = new Set(decode);
  if (maxModelLen !== undefined) {
    const full = maxModelLen - FULL_WINDOW_RESERVE_TOKENS;
    if (full > 0) set.add(full);
  }
  return [...set].sort((a, b) => a - b);
}

// Accepts "8K", "16k", "1M", "32768"; K = 1024 tokens as in the seeds' labels.
export function parseTokenCount(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$/.exec(text);
  if (!m) return undefined;
  const unit = m[2]?.toLowerCase() === 'k' ? 1024 : m[2]?.toLowerCase() === 'm' ? 1024 * 1024 : 1;
  const v = Number(m[1]) * unit;
  return Number.isInteger(v) && v > 0 ? v : undefined;
}
