import type { Profile } from './profile-schema.js';

type Pts = ReadonlyArray<readonly [number, number]>;

// Piecewise linear in x (or log2 x); flat beyond the first point, extrapolated along the last segment beyond the end.
export function interpolate(pts: Pts, x: number, logX = false): number {
  const f = (v: number) => (logX ? Math.log2(v) : v);
  const first = pts[0]!;
  if (pts.length === 1 || x <= first[0]) return first[1];
  for (let i = 1; i < pts.length; i++) {
    const b = pts[i]!;
    if (x <= b[0] || i === pts.length - 1) {
      const a = pts[i - 1]!;
      const t = (f(x) - f(a[0])) / (f(b[0]) - f(a[0]));
      return Math.max(a[1] + t * (b[1] - a[1]), Math.min(a[1], b[1]) * 0.25);
    }
  }
  return pts[pts.length - 1]![1];
}

export interface Curves {
  prefillMsPerToken(promptTokens: number): number;
  decodeStepMs(batch: number, contextTokensInBatch: number): number;
}

// Real-hardware times divided by timeScale, so a scaled sim is the same machine on a faster clock.
export function makeCurves(p: Profile): Curves {
  const s = p.timeScale;
  return {
    prefillMsPerToken: (promptTokens) =>
      1000 / interpolate(p.prefillTokensPerS, Math.max(1, promptTokens), true) / s,
    decodeStepMs: (batch, ctx) =>
      (interpolate(p.decodeStepMs, batch) + (p.decodeContextSlopeMsPerMTokens * ctx) / 1e6) / s,
  };
}

// When a request reaches the engine after the API server received it (ms, scaled).
export function apiDelayMs(p: Profile, promptTokens: number): number {
  const perToken = p.apiTokensPerS > 0 ? (promptTokens * 1000) / p.apiTokensPerS : 0;
  return (p.requestOverheadMs + perToken) / p.timeScale;
}

// Time of one request spent on the API server's one thread (templating, tokenizing), ms (scaled).
export function apiSerialMs(p: Profile, promptTokens: number): number {
  const perToken = p.apiSerialTokensPerS > 0 ? (promptTokens * 1000) / p.apiSerialTokensPerS : 0;
  return (p.apiSerialMs + perToken) / p.timeScale;
}

// The API server in front of the engine (docs/sim.md "API server delay"): each request spends apiDelayMs there,
// apiSerialMs of it one request at a time, so N prompts sent at once reach the engine spread out.
export class ApiServer {
  private freeAtMs = -Infinity;
  constructor(private readonly p: Profile) {}

  /** When a request received at `receivedMs` reaches the engine. */
  arrivalMs(receivedMs: number, promptTokens: number): number {
    const serial = apiSerialMs(this.p, promptTokens);
    const start = Math.max(receivedMs, this.freeAtMs);
    this.freeAtMs = start + serial;
    return start + Math.max(serial, apiDelayMs(this.p, promptTokens));
  }
}
