import type { ClientLoad } from '../../../client/self-check.js';
import type { RequestRecord } from '../../../client/types.js';
import type { Sent } from '../sender.js';
import type { ClockOffset } from '../runner.js';
import { toCoordinatorTime } from './offsets.js';

// One cell's requests from every agent on the coordinator's timeline (docs/distributed.md "Merge"): each agent's
// stamps shifted by its offset, then one list in end order, the order a single client's cell keeps. The cell's
// figures are then computed from this list by the single-run code (buildDecodeCell), never from the agents' own
// figures: medians and quantiles of the merged requests, not a median of medians.

export interface AgentShare {
  agent: number;
  sent: readonly Sent[]; // stamps on the agent's clock
  before: ClockOffset; // measured before the cell
  after?: ClockOffset; // and after it (absent: the agent was lost)
}

/** Every stamp of a record moved by `to` (agent clock -> coordinator clock). */
export function shiftRecord(r: RequestRecord, to: (t: number) => number): RequestRecord {
  const out: RequestRecord = {
    ...r,
    sentAtMs: to(r.sentAtMs),
    endAtMs: to(r.endAtMs),
    chunks: r.chunks.map(([t, n]) => [to(t), n]),
  };
  if (r.calledAtMs !== undefined) out.calledAtMs = to(r.calledAtMs);
  if (r.headersAtMs !== undefined) out.headersAtMs = to(r.headersAtMs);
  if (r.firstTokenAtMs !== undefined) out.firstTokenAtMs = to(r.firstTokenAtMs);
  return out;
}

// A session's schedule was kept on the agent's clock too (its zero moved there by the offset before the level):
// its stamps move with the record's, so a request's lag stays the agent's own.
function shiftSchedule(spec: Sent['spec'], to: (t: number) => number): Sent['spec'] {
  if (spec.scheduledAtMs === undefined && spec.releasedAtMs === undefined) return spec;
  const out = { ...spec };
  if (spec.scheduledAtMs !== undefined) out.scheduledAtMs = to(spec.scheduledAtMs);
  if (spec.releasedAtMs !== undefined) out.releasedAtMs = to(spec.releasedAtMs);
  return out;
}

/** `local`: the coordinator's own share, already on its clock. */
export function mergeShares(local: readonly Sent[], shares: readonly AgentShare[]): Sent[] {
  const out: Sent[] = [...local];
  for (const sh of shares) {
    const to = toCoordinatorTime(sh.before, sh.after);
    for (const s of sh.sent)
      out.push({ ...s, spec: shiftSchedule(s.spec, to), record: shiftRecord(s.record, to) });
  }
  return out.sort((a, b) => a.record.endAtMs - b.record.endAtMs);
}

// The client's self-check over K machines: the cell is as client-bound as its busiest agent. Each figure is the
// worst agent's, and the busiest loop names the agent, so a saturated agent shows whichever it was.
export function worstLoad(loads: ReadonlyArray<{ agent: number; load: ClientLoad }>): ClientLoad | undefined {
  if (loads.length === 0) return undefined;
  if (loads.length === 1 && loads[0]!.agent === 0) return loads[0]!.load;
  const max = (f: (l: ClientLoad) => number) => Math.max(...loads.map((l) => f(l.load)));
  const out: ClientLoad = {
    loopDelayP99Ms: max((l) => l.loopDelayP99Ms),
    loopDelayMaxMs: max((l) => l.loopDelayMaxMs),
    cpuPctPerThread: max((l) => l.cpuPctPerThread),
    threads: loads.reduce((a, l) => a + l.load.threads, 0),
    wallMs: max((l) => l.wallMs),
  };
  let busiest: { pct: number; name: string } | undefined;
  for (const { agent, load } of loads)
    if (load.busiestLoopPct !== undefined && load.busiestLoopPct > (busiest?.pct ?? -1))
      busiest = { pct: load.busiestLoopPct, name: `agent ${agent} ${load.busiestLoop ?? 'main thread'}` };
  if (busiest) {
    out.busiestLoopPct = busiest.pct;
    out.busiestLoop = busiest.name;
  }
  return out;
}
