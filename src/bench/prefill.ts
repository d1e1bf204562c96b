import type { BenchError } from '../errors.js';
import { fmtInt } from '../format/index.js';
import { prefillKey } from '../results/cell-key.js';
import type { PrefillPoint, PrefillRepeat } from '../results/schema.js';
import { prefillRepeatWarning } from '../results/warnings.js';
import { median, sortSamples } from '../stats/sorted.js';
import { fatalCode, fatalError } from './drive/fatal.js';
import { shortenedTarget } from './prefill-shorten.js';
import type { Sender, Sent } from './drive/sender.js';

// docs/method.md "Prefill": a repeat that differs from the median by more than 25% is flagged.
export const PREFILL_OUTLIER_FRACTION = 0.25;
// Repeat 1 is slot 1 of the context, sent cold (it then serves the decode cells warm); further repeats use
// fresh prompts from slots no decode cell uses.
export const PREFILL_EXTRA_SLOT_BASE = 100_000;
// A cold prompt still shares its chat template's fixed start with every earlier prompt, which a per-token prefix
// cache (llama.cpp) serves: tens of tokens, 1% of a 1K prompt. Only a larger share says the prompt was not cold
// (docs/method.md "Prefill").
export const CACHED_SHARE_WARNING = 0.1;

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
    // The rate of the tokens the server actually computed: cached ones cost no prefill.
    const computed = Math.max(0, promptTokens - Math.min(r.cachedTokens ?? 0, promptTokens));
    const rep: PrefillRepeat = {
      promptTokens,
      promptTokensSource: fromUsage ? 'usage' : 'estimate',
      ttftMs: Math.round(ttftMs * 1000) / 1000,
      tokensPerS: ttftMs > 0 ? Math.round((computed / (ttftMs / 1000)) * 10) / 10 : 0,
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
  const cached = median(
    sortSamples(flagged.flatMap((r) => (r.cachedTokens === undefined ? [] : [r.cachedTokens]))),
  );
  if (cached !== null) point.cachedTokens = Math.round(cached);
  if (Object.keys(errors).length) point.errors = errors;
  if (flagged.length === 0) point.error = lastError ?? 'no first token';
  return point;
}

// What a prefill point says beyond its figures, one line each for the result's warnings (`label`: e.g. "16K").
export function prefillWarnings(point: PrefillPoint, label: string): string[] {
  const out: string[] = [];
  const ctx = point.contextTokens;
  const sh = point.shortened;
  if (sh) {
    const refused = sh.rejectedPromptTokens ? `${fmtInt(sh.rejectedPromptTokens)}-token prompt` : 'prompt';
    out.push(
      `prefill ${label}: the server refused the ${refused} as too long; measured again with a prompt for ${fmtInt(sh.toTarget)} tokens`,
    );
  }
  if (point.repeats.some((r) => r.outlier)) out.push(prefillRepeatWarning(ctx));
  const share = Math.max(0, ...point.repeats.map((r) => (r.cachedTokens ?? 0) / Math.max(1, r.promptTokens)));
  if (share > CACHED_SHARE_WARNING)
    out.push(
      `prefill ${label}: the server reported ${Math.round(share * 100)}% of a cold prompt's tokens as cached ` +
        '(prompt tok/s counts only the computed tokens)',
    );
  const target = point.shortened?.toTarget ?? ctx;
  for (const r of point.repeats)
    if (r.promptTokensSource === 'usage' && Math.abs(r.promptTokens - target) / target > 0.01)
      out.push(`prefill ${label}: the prompt had ${r.promptTokens} tokens, more than 1% off its target`);
  return out;
}

// Cold prefill requests, one after another (each alone on the server), max_tokens 1. The full window (not a
// decode context) is the one point whose prompt may be refused for a few tokens too many: it is sent once more,
// shorter, and the point records it. `sent` holds every request (the log), the point only the measured ones.
// A refusal no retry can fix (bad key, unknown model, prompt too long) ends the point and comes back as data.
export async function measurePrefill(
  sender: Sender,
  contextTokens: number,
  decodeContext: boolean,
  repeats: number,
  signal: AbortSignal,
): Promise<{ sent: Sent[]; point: PrefillPoint } | { sent: Sent[]; fatal: BenchError }> {
  const sent: Sent[] = [];
  const measured: Sent[] = [];
  let shortened: PrefillPoint['shortened'];
  const send = (i: number) =>
    sender.send({
      cell: prefillKey(contextTokens),
      phase: 'prefill',
      contextTokens,
      ...(shortened ? { promptTokens: shortened.toTarget } : {}),
      slot: prefillSlot(i),
      maxOutput: 1,
      signal,
    });
  for (let i = 0; i < repeats && !signal.aborted; i++) {
    let s = await send(i);
    sent.push(s);
    const refusal = fatalCode(s.record) === 'CONTEXT_TOO_LONG' ? (s.record.error?.message ?? 'too long') : '';
    const cut = !decodeContext && !shortened && refusal ? shortenedTarget(contextTokens, refusal) : undefined;
    if (cut && !signal.aborted) {
      const reason = refusal;
      shortened = { fromTarget: contextTokens, toTarget: cut.to, reason };
      if (cut.served !== undefined) shortened.rejectedPromptTokens = cut.served;
      s = await send(i);
      sent.push(s);
    }
    measured.push(s);
    const code = fatalCode(s.record);
    if (code) return { sent, fatal: fatalError(code, s.record, `the ${contextTokens}-token prefill`) };
  }
  const point = buildPrefillPoint(contextTokens, decodeContext, measured);
  if (shortened) point.shortened = shortened;
  return { sent, point };
}
