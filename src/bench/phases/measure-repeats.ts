import type { DecodeCell } from '../../results/schema.js';
import { isoTime } from '../../clock.js';
import { mergeCellRepeats } from '../cell-repeats.js';
import type { Sent } from '../drive/sender.js';
import { measureCell } from './measure-cell.js';

// One decode cell measured `repeats` times back to back (--repeats), kept as one merged cell. Each repeat is a
// whole measureCell (warm-up from cached prompts, ramp, window, settle), so between-run noise shows in the spread.
// Outcomes as for one window: an interrupt keeps nothing of the cell; a Failed repeat is one of the repeats. A
// cell is kept only with all its repeats, so an error that ends the run before the last one keeps nothing of it
// either (--resume measures it whole, so every cell of a run is measured alike).
// Same contract as one window (measureCell), so the run loop treats both alike.
export const measureRepeats: typeof measureCell = async (env, ctx, n, startedAt, queueReference) => {
  const repeats = env.settings.repeats ?? 1;
  if (repeats <= 1) return measureCell(env, ctx, n, startedAt, queueReference);
  const cells: DecodeCell[] = [];
  const sent: Sent[] = [];
  const warnings: string[] = [];
  for (let i = 1; i <= repeats; i++) {
    if (env.stop.aborted) return { sent: [], interrupted: true };
    // Only the last window's close keeps the cell: an interrupt between repeats keeps nothing of it.
    const phase = (label: string, keeping?: string) =>
      env.phase(`${label} (repeat ${i} of ${repeats})`, i === repeats ? keeping : undefined);
    const began = i === 1 ? startedAt : isoTime(env.clock);
    const r = await measureCell({ ...env, phase }, ctx, n, began, queueReference);
    if ('interrupted' in r) return { sent: [], interrupted: true }; // measured again, all repeats, on resume
    sent.push(...r.sent.map((x) => ({ ...x, repeat: i })));
    for (const w of r.warnings) if (!warnings.includes(w)) warnings.push(w);
    if ('cell' in r) cells.push(r.cell);
    if (!r.fatal) continue;
    if (i < repeats || !('cell' in r)) return { sent, fatal: r.fatal, warnings };
    return { sent, cell: mergeCellRepeats(cells), warnings, fatal: r.fatal }; // the last window's, as today
  }
  return { sent, cell: mergeCellRepeats(cells), warnings };
};
