import type { Clock } from '../clock.js';
import { LagStats } from './lag.js';
import type { FinishReason, RequestSpec, Scheduler, Seq, StepPlan } from './scheduler.js';

// What the HTTP layer attaches to each sequence to receive its tokens.
export interface SeqSink {
  admitted?(atMs: number, cachedTokens: number): void;
  tokens(tokens: number, reasoningTokens: number, finish: FinishReason | undefined): void;
  failed?(atMs: number): void; // the engine ended the request with an error (a full llama.cpp unified pool)
}

interface Pending {
  seq: Seq;
  tokens: number;
  reasoning: number;
  finish?: FinishReason;
}

// Drives the virtual-time scheduler in real time. Steps chain on their intended end times (no drift); when the
// process falls behind, all due steps are applied in one pass and each stream gets one merged write.
export class EngineLoop {
  readonly lag = new LagStats();
  private current: StepPlan | null = null;
  private lastEndMs = -Infinity; // when the last step ended
  private cancel: (() => void) | null = null;
  private closed = false;

  constructor(
    readonly sched: Scheduler,
    private readonly clock: Clock,
  ) {}

  submit(spec: RequestSpec, sink: SeqSink): Seq {
    const seq = this.sched.submit(spec);
    seq.sink = sink;
    if (!this.current) {
      if (spec.arrivalMs <= this.clock.now()) this.kick();
      else this.arm();
    }
    return seq;
  }

  abort(id: string): void {
    this.sched.abort(id);
  }

  close(): void {
    this.closed = true;
    this.cancel?.();
    this.cancel = null;
  }

  private kick(): void {
    if (this.closed || this.current) return;
    this.current = this.sched.plan(this.idleStartMs());
    this.notifyAdmitted(this.current);
    this.arm();
  }

  // An idle engine's next step starts when the first waiting request reached it (or the last step ended, if
  // later), not when a late timer or pass noticed it: admissions keep to the schedule as steps do.
  private idleStartMs(): number {
    const now = this.clock.now();
    const next = this.sched.nextArrivalMs();
    return next === undefined ? now : Math.min(now, Math.max(next, this.lastEndMs));
  }

  private arm(): void {
    this.cancel?.();
    this.cancel = null;
    if (this.closed) return;
    if (this.current) {
      this.cancel = this.clock.setTimer(() => this.tick(), this.current.endMs - this.clock.now());
      return;
    }
    // Idle, but a request is still in the API server (requestOverheadMs): wake when it reaches the engine.
    const next = this.sched.nextArrivalMs();
    if (next !== undefined) {
      this.cancel = this.clock.setTimer(() => {
        this.cancel = null;
        this.kick();
      }, next - this.clock.now());
    }
  }

  private tick(): void {
    this.cancel = null;
    if (this.closed) return;
    const now = this.clock.now();
    const cpu0 = process.cpuUsage();
    const pending = new Map<Seq, Pending>();
    let firstDue: number | undefined;
    while (this.current && this.current.endMs <= now) {
      firstDue ??= this.current.endMs;
      this.lastEndMs = this.current.endMs;
      for (const em of this.sched.complete(this.current)) {
        const p = pending.get(em.seq);
        if (p) {
          p.tokens += em.tokens;
          p.reasoning += em.reasoningTokens;
          p.finish = em.finish;
        } else {
          pending.set(em.seq, {
            seq: em.seq,
            tokens: em.tokens,
            reasoning: em.reasoningTokens,
            finish: em.finish,
          });
        }
      }
      this.current = this.sched.plan(this.current.endMs);
      this.notifyAdmitted(this.current);
    }
    for (const p of pending.values())
      (p.seq.sink as SeqSink | undefined)?.tokens(p.tokens, p.reasoning, p.finish);
    if (firstDue !== undefined) {
      this.lag.add(now - firstDue);
      const cpu = process.cpuUsage(cpu0);
      this.lag.addPass(this.clock.now() - now, (cpu.user + cpu.system) / 1000);
    }
    // Arrivals after the last step's end start one at their arrival.
    if (!this.current && this.sched.busy) {
      this.current = this.sched.plan(this.idleStartMs());
      this.notifyAdmitted(this.current);
    }
    this.arm();
  }

  private notifyAdmitted(plan: StepPlan | null): void {
    if (!plan) return;
    for (const s of plan.admitted)
      (s.sink as SeqSink | undefined)?.admitted?.(plan.startMs, s.cachedTokens ?? 0);
    for (const s of plan.failed) (s.sink as SeqSink | undefined)?.failed?.(plan.startMs);
  }
}
