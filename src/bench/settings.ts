import type { HttpClient } from '../client/stream.js';
import type { Hardware, ServiceLevel } from '../results/schema.js';
import type { HardwareOverrides } from '../target/hardware.js';
import type { EngineFlags } from '../target/metadata.js';

// Everything a run needs, already validated (src/config resolves flags and YAML into this). Field names are the
// option table's (src/config/options.ts): a flag, its YAML key, its result field and its setting share one name.
export interface RunSettings {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  api: 'chat' | 'completions';
  engine?: string;
  contexts?: number[];
  prefillContexts?: number[];
  concurrency?: number[];
  maxOutput: number;
  duration: number; // seconds
  prefillRepeats: number;
  repeats?: number; // windows per decode cell, merged into one cell (src/bench/cell-repeats.ts); default 1
  rampTimeout: number; // seconds
  settleTimeout: number; // seconds
  settlePause: number; // seconds
  metricsInterval: number; // seconds
  maxModelLen?: number;
  kvCapacity?: number;
  ignoreEos: boolean;
  sampling: Record<string, unknown>;
  seed: number;
  workers?: number; // > 1: decode cells' slots on worker threads (src/bench/workers)
  httpClient?: HttpClient; // the streaming transport of http:// targets; default lean
  verifyCapacity?: boolean; // measure the first Over capacity cell of each context even when the capacity is exact
  slo?: ServiceLevel; // stored for the reports' answer (--slo); measuring does not depend on it
  out: string; // results folder: a new run writes <out>/<runId>
  runId?: string;
  resume?: string; // the run folder to continue
  title?: string;
  launchCommand?: string;
  revision?: string;
  quantization?: string;
  engineFlags?: Omit<EngineFlags, 'quantization'>; // --engine-version, --engine-commit, --backend, --build, --repository
  // Overrides (--gpu-name...) win over discovery; a complete Hardware (source set, e.g. 'sim') replaces it.
  hardware?: HardwareOverrides | Hardware;
  reports?: boolean; // write report.html and report.md beside the result (default true)
}

// --repeats N repeats prefill points too: each gets at least N cold requests, so it has a spread to show.
export const prefillRepeatsOf = (s: Pick<RunSettings, 'prefillRepeats' | 'repeats'>): number =>
  Math.max(s.prefillRepeats, s.repeats ?? 1);

export function newRunId(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

// Strips userinfo and adds /v1 when missing: a result never carries credentials.
export function normalizeBaseUrl(raw: string): string {
  const u = new URL(raw);
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  let path = u.pathname.replace(/\/+$/, '');
  if (!/\/v\d+$/.test(path)) path += '/v1';
  u.pathname = path;
  return u.toString().replace(/\/$/, '');
}
