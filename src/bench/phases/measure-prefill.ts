import { contextLabel } from '../../format/labels.js';
import type { PlannedPrefill } from '../../plan/plan.js';
import type { PrefillPoint } from '../../results/schema.js';
import { measurePrefill, prefillWarnings } from '../prefill.js';
import type { Sender } from '../sender.js';
import type { Measured } from './outcome.js';
import type { TooLong } from './too-long.js';

// One prefill point: cold repeats of one context, or its Failed point when the context is too long.
export async function measurePrefillPoint(
  sender: Sender,
  pp: PlannedPrefill,
  repeats: number,
  stop: AbortSignal,
  tooLong: TooLong,
  phase: (label: string) => void,
): Promise<Measured<PrefillPoint>> {
  const ctx = pp.contextTokens;
  if (pp.status === 'Too long')
    return { sent: [], cell: tooLong.plannedPrefill(ctx, pp.decodeContext, pp.reason), warnings: [] };
  const label = contextLabel(ctx);
  phase(`prefill ${label} (cold)`);
  const r = await measurePrefill(sender, ctx, pp.decodeContext, repeats, stop);
  if ('fatal' in r) {
    if (r.fatal.code !== 'CONTEXT_TOO_LONG') return { sent: r.sent, fatal: r.fatal, warnings: [] };
    const cell = tooLong.refusedPrefill(ctx, pp.decodeContext, r.fatal);
    const warnings = pp.decodeContext
      ? []
      : [`prefill ${label}: the server rejected the prompt as too long (${r.fatal.message})`];
    return { sent: r.sent, cell, warnings };
  }
  if (stop.aborted) return { sent: r.sent, interrupted: true };
  return { sent: r.sent, cell: r.point, warnings: prefillWarnings(r.point, label) };
}
