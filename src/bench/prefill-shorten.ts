// The full-window prefill point sits 256 tokens under the server's limit, so a prompt a little longer than its target
// is refused as too long (a real llama-server counted 16,400 tokens for a 16,128 target). Pure: from the refusal to
// the shorter target of the one retry. Engines name the prompt's length in their own words (src/engines,
// docs/engines.md "Error bodies").
import { PROMPT_TOKENS_IN_ERROR } from '../engines/index.js';

// Margin below the target when the miss is known; a blind cut when it is not.
export const SHORTEN_MARGIN_TOKENS = 64;
export const BLIND_SHORTEN_FRACTION = 0.03;

export function promptTokensFromError(message: string): number | undefined {
  for (const re of PROMPT_TOKENS_IN_ERROR) {
    const m = re.exec(message);
    if (m) return Number(m[1]);
  }
  return undefined;
}

// A prompt that came out `served` tokens for `target` misses by the same share again, so the new target takes the
// miss off twice over (once for the miss, once for the same miss on the shorter prompt) plus a margin. A prompt
// that did not overshoot its target was refused by a limit below the target itself: no shorter prompt measures
// this point, so there is no retry (undefined).
export function shortenedTarget(
  target: number,
  message: string,
): { to: number; served?: number } | undefined {
  const served = promptTokensFromError(message);
  if (served !== undefined && served <= target) return undefined;
  if (served !== undefined) {
    return { to: Math.max(1, target - (served - target) - SHORTEN_MARGIN_TOKENS), served };
  }
  return { to: Math.max(1, Math.floor(target * (1 - BLIND_SHORTEN_FRACTION))) };
}
