// Sizing without a tokenizer: two probe prompts of different lengths fit tokens = overhead + chars / charsPerToken,
// where the overhead holds the chat template's tokens (the server's count of a probe includes them).
import { buildPromptText, type PromptSpec } from './build.js';

export const DEFAULT_CHARS_PER_TOKEN = 4;
const PROBE_CHARS = [12_000, 6_000, 3_000];
export const SMALL_PROBE_CHARS = 1_500;

export interface Fit {
  overheadTokens: number;
  charsPerToken: number;
}

// The calibration prompts have their own run id, so they never warm a measured prompt's prefix.
export const calibrationSpec = (runId: string, seed: number, slot: number): PromptSpec => ({
  runId: `${runId}-calibration`,
  contextTokens: 0,
  slot,
  seed,
});

export async function calibrate(
  count: (text: string) => Promise<number | undefined>,
  runId: string,
  seed: number,
): Promise<Fit | undefined> {
  const smallText = buildPromptText(
    calibrationSpec(runId, seed, 0),
    DEFAULT_CHARS_PER_TOKEN,
    SMALL_PROBE_CHARS,
  );
  const small = await count(smallText);
  if (small === undefined) return undefined;
  for (const chars of PROBE_CHARS) {
    const bigText = buildPromptText(calibrationSpec(runId, seed, 1), DEFAULT_CHARS_PER_TOKEN, chars);
    const big = await count(bigText);
    if (big === undefined || big <= small) continue;
    const charsPerToken = (bigText.length - smallText.length) / (big - small);
    return { charsPerToken, overheadTokens: small - smallText.length / charsPerToken };
  }
  return undefined;
}

export function promptFromFit(spec: PromptSpec, f: Fit): { text: string; estTokens: number } {
  const chars = Math.max(1, Math.round((spec.contextTokens - f.overheadTokens) * f.charsPerToken));
  const text = buildPromptText(spec, f.charsPerToken, chars);
  return { text, estTokens: Math.round(f.overheadTokens + text.length / f.charsPerToken) };
}
