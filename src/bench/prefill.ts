import type { PrefillPoint, PrefillRepeat } from '../results/schema.js';
import { median, sortSamples } from '../stats/sorted.js';
import { fatalCode, fatalError } from './fatal.js';
import type { Sender, Sent } from './sender.js';

// METHOD.md: a repeat that differs from the median by more than 25% is flagged.
export const PREFILL_OUTLIER_FRACTION = 0.25;
// Repeat 1 is slot 1 of the context, sent cold (it then serves the decode cells warm); further repeats use
// fresh prompts from slots no decode cell uses.
export const PREFILL_EXTRA_SLOT_BASE = 100_000;

export function prefillSlot(repeat: number): number {
  return repeat === 0 ? 1 : PREFILL_EXTRA_SLOT_BASE + repeat;
}

export function flagOutliers(repeats: PrefillRepeat[]): PrefillRepeat[] {
  const med = median(sortSamples(repeats.map((r) => r.tokensPerS)));
  if (med === null || med <= 0 || repeats.length < 2) return repeats;
  return repeats.map((r) =>
    Math.abs(r.tokensPerS - med) / med > PREFILL_OUTLIER_FRACTION ? { ...r, outlier: true } : r,
  );
}

// Pure: the repeats' records -> one prefill point (medians, outliers flagged).
export function buildPrefillPoint(
  contextTokens: number,
  decodeContext: boolean,
  sent: readonly Sent[],
): PrefillPoint {
  const repeats: PrefillRepeat[] = [];
  const errors: Record<string, number> = {};
  let lastError: string | undefined;
  for (const s of sent) {
    const r = s.record;
    if (r.firstTokenAtMs === undefined || !r.ok) {
      if (r.error) {
        errors[r.error.kind] = (errors[r.error.kind] ?? 0) + 1;
        lastError = r.error.message;
      }
      continue;
    }
    const ttftMs = r.firstTokenAtMs - r.sentAtMs;
    const fromUsage = r.promptTokens !== undefined;
    const promptTokens = r.promptTokens ?? s.estTokens;
    const rep: PrefillRepeat = {
      promptTokens,
      promptTokensSource: fromUsage ? 'usage' : 'estimate',
      ttftMs: Math.round(ttftMs * 1000) / 1000,
      tokensPerS: ttftMs > 0 ? Math.round((promptTokens / (ttftMs / 1000)) * 10) / 10 : 0,
    };
    if (r.cachedTokens !== undefined) rep.cachedTokens = r.cachedTokens;
    repeats.push(rep);
  }
  const flagged = flagOutliers(repeats);
  const point: PrefillPoint = {
    contextTokens,
    status: flagged.length > 0 ? 'Valid' : 'Failed',
    promptTokens: (() => {
      const m = median(sortSamples(flagged.map((r) => r.promptTokens)));
      return m === null ? null : Math.round(m);
    })(),
    ttftMs: median(sortSamples(flagged.map((r) => r.ttftMs))),
    tokensPerS: median(sortSamples(flagged.map((r) => r.tokensPerS))),
    completed: flagged.length,
    repeats: flagged,
    decodeContext,
  };
  if (Object.keys(errors).length) point.errors = errors;
  if (flagged.length === 0) point.error = lastError ?? 'no first token';
  return point;
}

// Cold prefill requests, one after another (each alone on the server), max_tokens 1.
export async function measurePrefill(
  sender: Sender,
  contextTokens: number,
  decodeContext: boolean,
  repeats: number,
  signal: AbortSignal,
): Promise<{ point: PrefillPoint; sent: Sent[] }> {
  const sent: Sent[] = [];
  for (let i = 0; i < repeats && !signal.aborted; i++) {
    const s = await sender.send({
      cell: `prefill ${contextTokens}`,
      phase: 'prefill',
      contextTokens,
      slot: prefillSlot(i),
      maxTokens: 1,
      signal,
    });
    sent.push(s);
    const code = fatalCode(s.record);
    if (code) throw Object.assign(fatalError(code, s.record, `the ${contextTokens}-token prefill`), { sent });
  }
  return { point: buildPrefillPoint(contextTokens, decodeContext, sent), sent };
}
