import type { PrefillPoint } from '../results/schema.js';

// What backs a prefill figure beyond its rate, in words for every report: the prompt tokens the server served
// from its cache (the rate counts only the computed ones) and a full-window prompt sent again shorter. `short`
// for the 80-column terminal report.
export function prefillEvidence(p: PrefillPoint, short = false): string {
  const parts: string[] = [];
  const n = (x: number) => x.toLocaleString('en-US');
  if (p.cachedTokens)
    parts.push(short ? `${n(p.cachedTokens)} cached` : `${n(p.cachedTokens)} cached tokens not counted`);
  if (p.shortened)
    parts.push(
      short
        ? `retried at ${n(p.shortened.toTarget)}`
        : `refused as too long, remeasured at ${n(p.shortened.toTarget)} tokens`,
    );
  return parts.join('; ');
}
