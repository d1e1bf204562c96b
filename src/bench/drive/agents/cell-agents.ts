import type { CellAgents } from '../../../results/schema.js';
import type { CellAgentsRun, ClockOffset, RemoteOfCell } from '../runner.js';
import { offsetUncertainty, uncertaintyLimitMs } from './offsets.js';

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const stored = (o: ClockOffset | undefined) =>
  o ? { offsetMs: r3(o.offsetMs), uncertaintyMs: r3(o.uncertaintyMs) } : undefined;

// The cell's `agents` field (docs/result-schema.md), with the clock flag judged against the window's length.
export function cellAgentsField(run: CellAgentsRun, windowMs: number): CellAgents {
  let widest = 0;
  let widestAgent: RemoteOfCell | undefined;
  for (const r of run.remotes) {
    if (!r.before) continue;
    const u = offsetUncertainty(r.before, r.after);
    if (u > widest) {
      widest = u;
      widestAgent = r;
    }
  }
  const out: CellAgents = {
    count: 1 + run.remotes.length,
    clocks: run.remotes.map((r) => {
      const before = stored(r.before);
      const after = stored(r.after);
      return {
        agent: r.agent,
        host: r.host,
        slots: r.slots,
        ...(before ? { before } : {}),
        ...(after ? { after } : {}),
      };
    }),
    windowUncertaintyMs: r3(widest),
  };
  if (widestAgent && widest > uncertaintyLimitMs(windowMs)) {
    const share = ((2 * widest) / windowMs) * 100;
    out.clockFlag =
      `agent ${widestAgent.agent} (${widestAgent.host})'s clock is known to ±${widest.toFixed(1)} ms only: ` +
      `the window's edges on its requests may be off by that much (up to ${share.toFixed(2)}% of its tokens)`;
  }
  if (run.lost) out.lost = run.lost;
  return out;
}
