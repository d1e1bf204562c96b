// Scheduler lag: how late each step's emission ran versus the step's intended end time (bounded sample ring).
export class LagStats {
  private readonly ring: Float64Array;
  private n = 0;
  private sum = 0;
  private count = 0;
  maxMs = 0;
  maxPassMs = 0; // longest single pass of the loop itself: a long one means the sim is slow, not starved
  private passSum = 0;
  constructor(size = 8192) {
    this.ring = new Float64Array(size);
  }
  maxPassCpuMs = 0; // CPU time of that kind of pass: wall time far above it means the machine starved the sim
  addPass(ms: number, cpuMs: number): void {
    this.passSum += ms;
    if (ms > this.maxPassMs) this.maxPassMs = ms;
    if (cpuMs > this.maxPassCpuMs) this.maxPassCpuMs = cpuMs;
  }
  add(lagMs: number): void {
    const v = Math.max(0, lagMs);
    this.ring[this.n++ % this.ring.length] = v;
    this.sum += v;
    this.count++;
    if (v > this.maxMs) this.maxMs = v;
  }
  summary(): {
    maxMs: number;
    p99Ms: number;
    meanMs: number;
    samples: number;
    maxPassMs: number;
    meanPassMs: number;
    maxPassCpuMs: number;
  } {
    const k = Math.min(this.n, this.ring.length);
    const xs = Array.from(this.ring.subarray(0, k)).sort((a, b) => a - b);
    const p99 = k === 0 ? 0 : xs[Math.min(k - 1, Math.ceil(0.99 * k) - 1)]!;
    return {
      maxMs: this.maxMs,
      p99Ms: p99,
      meanMs: this.count ? this.sum / this.count : 0,
      samples: this.count,
      maxPassMs: this.maxPassMs,
      meanPassMs: this.count ? this.passSum / this.count : 0,
      maxPassCpuMs: this.maxPassCpuMs,
    };
  }
}
