import type { Clock } from '../clock.js';
import type { EngineLoop } from './engine-loop.js';
import type { FaultPlan } from './faults.js';
import type { FlavorSpec } from './flavors/flavor.js';
import type { Profile } from './profile-schema.js';
import type { StreamSession } from './stream-session.js';
import type { TruthLog, TruthRecord } from './truth.js';

// Latency histograms the flavors expose (seconds), fed from finished truth records.
export const LATENCY_BUCKETS_S = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 640];

export class Histogram {
  readonly counts = new Array<number>(LATENCY_BUCKETS_S.length).fill(0);
  sum = 0;
  count = 0;
  observe(v: number): void {
    this.sum += v;
    this.count++;
    for (let i = 0; i < LATENCY_BUCKETS_S.length; i++) if (v <= LATENCY_BUCKETS_S[i]!) this.counts[i]!++;
  }
}

export interface SimContext {
  profile: Profile;
  flavor: FlavorSpec;
  engine: EngineLoop;
  clock: Clock;
  truth: TruthLog;
  faults: FaultPlan;
  apiKey?: string;
  startedMs: number;
  sessions: Set<StreamSession>;
  nextId: number;
  launchCommand?: string; // set once the server listens (GET /sim/launch)
  hist: { ttft: Histogram; e2e: Histogram; queue: Histogram; itl: Histogram };
}

export function observeTruth(ctx: SimContext, t: TruthRecord): void {
  if (t.firstTokenMs !== undefined) ctx.hist.ttft.observe((t.firstTokenMs - t.arrivalMs) / 1000);
  ctx.hist.e2e.observe((t.endMs - t.arrivalMs) / 1000);
  if (t.admittedMs !== undefined) ctx.hist.queue.observe(Math.max(0, t.admittedMs - t.arrivalMs) / 1000);
  if (t.chunks.length > 1 && t.outputTokens > 1) {
    const first = t.chunks[0]![0];
    const last = t.chunks[t.chunks.length - 1]![0];
    ctx.hist.itl.observe((last - first) / 1000 / (t.outputTokens - 1));
  }
}
