import { contextLabel } from '../../format/labels.js';
import type { PlannedPrefill } from '../../plan/plan.js';
import type { PrefillPoint } from '../../results/schema.js';
import { measurePrefill, prefillWarnings } from '../prefill.js';
import { stoppedAnswering, unreachable } from './measure-cell.js';
import type { Sender } from '../drive/sender.js';
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
  dir: string,
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
  // A server that died between cells refuses every repeat: stop as a decode cell stops, not go on Failed.
  if (r.point.status === 'Failed' && unreachable(r.sent))
    return { sent: r.sent, fatal: stoppedAnswering(`prefill ${label}`, dir), warnings: [] };
  return { sent: r.sent, cell: r.point, warnings: prefillWarnings(r.point, label) };
}
