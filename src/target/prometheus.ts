import parsePrometheusTextFormat from 'parse-prometheus-text-format';

// Samples indexed by their exposed name (`vllm:prefix_cache_hits_total`, not the family name), because
// that is the name engines document and the one the library files `_total` samples under.
export interface PromPoint {
  value: number;
  labels: Record<string, string>;
}
export type PromIndex = Map<string, PromPoint[]>;

// `only`: the exposed sample names wanted. vLLM's exposition runs to hundreds of KB of histogram buckets and
// a full parse blocks the event loop for tens of ms, which would delay the client's chunk timestamps; lines
// are filtered by name first so the parser sees a few dozen.
export function parsePrometheus(text: string, only?: ReadonlySet<string>): PromIndex {
  const index: PromIndex = new Map();
  let families;
  try {
    families = parsePrometheusTextFormat(only ? keepLines(text, only) : text);
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

// Sample lines of the wanted names only, by a char-code scan (measured ~3x faster than split + regex on
// 300 KB); comment lines are dropped, so the parser files them as untyped, which keeps values and labels.
function keepLines(text: string, only: ReadonlySet<string>): string {
  const kept: string[] = [];
  let pos = 0;
  while (pos < text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl === -1) nl = text.length;
    if (text.charCodeAt(pos) !== 35 /* # */) {
      let end = pos;
      while (end < nl) {
        const ch = text.charCodeAt(end);
        if (ch === 123 /* { */ || ch === 32 /* space */) break;
        end++;
      }
      if (only.has(text.slice(pos, end))) kept.push(text.slice(pos, nl));
    }
    pos = nl + 1;
  }
  return kept.join('\n') + '\n';
}

function push(index: PromIndex, name: string, raw: string, labels: Record<string, string> | undefined): void {
  const value = Number(raw);
  if (!Number.isFinite(value)) return;
  const list = index.get(name);
  const point = { value, labels: labels ?? {} };
  if (list) list.push(point);
  else index.set(name, [point]);
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
