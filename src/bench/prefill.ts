import type { BenchError } from '../errors.js';
import { prefillKey } from '../results/cell-key.js';
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

// Cold prefill requests, one after another (each alone on the server), max_tokens 1. A refusal no retry can fix
// (bad key, unknown model, prompt too long) ends the point and comes back as data with what was sent.
export async function measurePrefill(
  sender: Sender,
  contextTokens: number,
  decodeContext: boolean,
  repeats: number,
  signal: AbortSignal,
): Promise<{ sent: Sent[]; point: PrefillPoint } | { sent: Sent[]; fatal: BenchError }> {
  const sent: Sent[] = [];
  for (let i = 0; i < repeats && !signal.aborted; i++) {
    const s = await sender.send({
      cell: prefillKey(contextTokens),
      phase: 'prefill',
      contextTokens,
      slot: prefillSlot(i),
      maxTokens: 1,
      signal,
    });
    sent.push(s);
    const code = fatalCode(s.record);
    if (code) return { sent, fatal: fatalError(code, s.record, `the ${contextTokens}-token prefill`) };
  }
  return { point: buildPrefillPoint(contextTokens, decodeContext, sent), sent };
}

// What a finished point says about the server or the prompts, for the run's warnings.
export function prefillWarnings(point: PrefillPoint, label: string): string[] {
  const out: string[] = [];
  if (point.repeats.some((r) => r.outlier))
    out.push(`prefill ${label}: a repeat differs from the median by more than 25% (flagged as outlier)`);
  if (point.repeats.some((r) => (r.cachedTokens ?? 0) > 0))
    out.push(`prefill ${label}: the server reported cached tokens on a cold prompt`);
  const ctx = point.contextTokens;
  for (const r of point.repeats)
    if (r.promptTokensSource === 'usage' && Math.abs(r.promptTokens - ctx) / ctx > 0.01)
      out.push(`prefill ${label}: the prompt had ${r.promptTokens} tokens, more than 1% off its target`);
  return out;
}
