import type { RunEntry } from './run-entry.js';

// The list's filters, read from and written back to the URL so every view is a permalink.
export const FACETS = ['model', 'engine', 'version', 'gpu', 'status'] as const;
export type Facet = (typeof FACETS)[number];

export interface RunFilter {
  q?: string; // words that must all appear in the title, model, engine, GPU or folder
  model?: string;
  engine?: string;
  version?: string;
  gpu?: string;
  status?: string;
  from?: string; // YYYY-MM-DD, inclusive (UTC)
  to?: string; // YYYY-MM-DD, inclusive (UTC)
}

const FIELDS = ['q', ...FACETS, 'from', 'to'] as const;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function facetValue(e: RunEntry, f: Facet): string {
  switch (f) {
    case 'model':
      return e.model;
    case 'engine':
      return e.engine;
    case 'version':
      return e.engineVersion;
    case 'gpu':
      return e.gpu;
    case 'status':
      return e.status;
  }
}

export function parseFilter(params: URLSearchParams): RunFilter {
  const f: RunFilter = {};
  for (const k of FIELDS) {
    const v = params.get(k)?.trim();
    if (!v) continue;
    // A malformed date is ignored rather than matching nothing: the form shows it was dropped.
    if ((k === 'from' || k === 'to') && !DAY.test(v)) continue;
    f[k] = v;
  }
  return f;
}

export function filterParams(f: RunFilter): URLSearchParams {
  const p = new URLSearchParams();
  for (const k of FIELDS) if (f[k]) p.set(k, f[k]);
  return p;
}

export function matches(e: RunEntry, f: RunFilter): boolean {
  for (const k of FACETS) if (f[k] !== undefined && facetValue(e, k) !== f[k]) return false;
  const day = e.startedAt.slice(0, 10);
  if (f.from && day < f.from) return false;
  if (f.to && day > f.to) return false;
  if (f.q) {
    const hay =
      `${e.title} ${e.model} ${e.engine} ${e.engineVersion} ${e.gpu} ${e.id} ${e.runId}`.toLowerCase();
    for (const word of f.q.toLowerCase().split(/\s+/)) if (word && !hay.includes(word)) return false;
  }
  return true;
}

/** Runs that pass the filter, in the order given (the index lists newest first). */
export function filterRuns(runs: readonly RunEntry[], f: RunFilter): RunEntry[] {
  return runs.filter((e) => matches(e, f));
}

/** Distinct values of each facet with their counts, for the filter menus. */
export function facetCounts(runs: readonly RunEntry[]): Record<Facet, Array<[string, number]>> {
  const out = {} as Record<Facet, Array<[string, number]>>;
  for (const k of FACETS) {
    const m = new Map<string, number>();
    for (const e of runs) {
      const v = facetValue(e, k);
      if (v) m.set(v, (m.get(v) ?? 0) + 1);
    }
    out[k] = [...m].sort((a, b) => a[0].localeCompare(b[0], 'en', { numeric: true }));
  }
  return out;
}
