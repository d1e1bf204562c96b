import type { PrefillPoint, RunResult } from '../results/schema.js';

// The full-window prefill point sits 256 tokens under the max model length in runs of this version (16,128 for a
// 16,384 context, 1,048,320 for 1M) and at the length itself in v0.6.2 reports (1024K = 1,048,576). Comparing a
// new run with an imported report is the main use of import, so two prefill-only points this close are the same.
export const FULL_WINDOW_TOLERANCE_TOKENS = 512;

const prefillOnly = (p: PrefillPoint) => p.decodeContext === false;

const near = (a: number, b: number) => Math.abs(a - b) <= FULL_WINDOW_TOLERANCE_TOKENS;

// The prefill contexts of all runs, the first run's spelling kept where full-window points pair up.
export function alignedPrefillContexts(results: readonly RunResult[]): number[] {
  const chosen: number[] = [];
  const onlyPrefill = new Set<number>();
  for (const r of results)
    for (const p of r.prefill) {
      if (chosen.includes(p.contextTokens)) continue;
      if (prefillOnly(p) && [...onlyPrefill].some((c) => near(c, p.contextTokens))) continue;
      chosen.push(p.contextTokens);
      if (prefillOnly(p)) onlyPrefill.add(p.contextTokens);
    }
  return chosen.sort((a, b) => a - b);
}

// The run's point at ctx, or its full-window point when ctx is another run's full window.
export function findPrefill(r: RunResult, ctx: number): PrefillPoint | undefined {
  return (
    r.prefill.find((p) => p.contextTokens === ctx) ??
    r.prefill.find((p) => prefillOnly(p) && near(p.contextTokens, ctx))
  );
}
