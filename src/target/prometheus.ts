import parsePrometheusTextFormat from 'parse-prometheus-text-format';

// Samples indexed by their exposed name (`vllm:prefix_cache_hits_total`, not the family name), because
// that is the name engines document and the one the library files `_total` samples under.
export interface PromPoint {
  value: number;
  labels: Record<string, string>;
}
export type PromIndex = Map<string, PromPoint[]>;

export function parsePrometheus(text: string): PromIndex {
  const index: PromIndex = new Map();
  let families;
  try {
    families = parsePrometheusTextFormat(text);
  } catch {
    return index;
  }
  for (const fam of families) {
    for (const m of fam.metrics) {
      if (m.value === undefined) {
        // Histograms and summaries: keep _sum and _count, enough for means.
        if (m.sum !== undefined) push(index, `${fam.name}_sum`, m.sum, m.labels);
        if (m.count !== undefined) push(index, `${fam.name}_count`, m.count, m.labels);
        continue;
      }
      push(index, fam.name, m.value, m.labels);
    }
  }
  return index;
}

function push(index: PromIndex, name: string, raw: string, labels: Record<string, string> | undefined): void {
  const value = Number(raw);
  if (!Number.isFinite(value)) return;
  const list = index.get(name);
  const point = { value, labels: labels ?? {} };
  if (list) list.push(point);
  else index.set(name, [point]);
}

// Looks like Prometheus exposition rather than an HTML page or JSON.
export function looksLikePrometheus(text: string): boolean {
  const t = text.trimStart();
  if (!t || t[0] === '{' || t[0] === '[' || t[0] === '<') return false;
  return parsePrometheus(text).size > 0;
}

// Sum over label sets (one per DP rank / engine) of the first name present.
export function sumOf(index: PromIndex, names: readonly string[] | undefined): number | null {
  for (const name of names ?? []) {
    const pts = index.get(name);
    if (pts && pts.length > 0) return pts.reduce((s, p) => s + p.value, 0);
  }
  return null;
}

// Mean over label sets of the first name present (ratios such as KV usage).
export function meanOf(index: PromIndex, names: readonly string[] | undefined): number | null {
  for (const name of names ?? []) {
    const pts = index.get(name);
    if (pts && pts.length > 0) return pts.reduce((s, p) => s + p.value, 0) / pts.length;
  }
  return null;
}

export function hasAny(index: PromIndex, prefix: string): boolean {
  for (const k of index.keys()) if (k.startsWith(prefix)) return true;
  return false;
}
