// Every string that comes from a result passes through here before it reaches HTML or SVG.
const MAP: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(text: string | number | null | undefined): string {
  return String(text ?? '').replace(/[&<>"']/g, (c) => MAP[c]!);
}

/** Safe id fragment: digits, letters and dashes only. */
export function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9-]+/g, '-');
}

// An identifier in prose: a flag (--workers, --gpu-memory-utilization), a metric or config name
// (vllm:cache_config_info, kv_cache_size_tokens), a run id or a path, with the brackets and punctuation around it.
const IDENT = /[([]?(?:--[A-Za-z][\w-]*|[A-Za-z0-9][\w.]*(?:[-:/_][\w.]+)+)[)\],;.]*/g;

// Flags, names with ':' or '_', paths and ids: a hyphenated English word ("warm-up") may break at its hyphen.
const isIdentifier = (t: string) =>
  /(^|[([])--/.test(t) ||
  /[:_]/.test(t.replace(/[):,;.\]]+$/, '')) ||
  (t.includes('/') && t.length >= 8) ||
  (t.includes('-') && /\d/.test(t));

/**
 * Prose from a result, escaped, with each identifier in a `span.id`: kept whole on a line where it fits (never
 * "--" at one line's end and "workers" at the next, nor "cache_config_i / nfo"), broken only where a line
 * cannot hold it at all.
 */
export function escText(text: string | number | null | undefined): string {
  const raw = String(text ?? '');
  let out = '';
  let last = 0;
  for (const m of raw.matchAll(IDENT)) {
    if (!isIdentifier(m[0])) continue; // a plain word, "tok/s" or "warm-up" wraps as prose does
    out += esc(raw.slice(last, m.index)) + `<span class="id">${esc(m[0])}</span>`;
    last = m.index + m[0].length;
  }
  return out + esc(raw.slice(last));
}

/** A long name (a workload's label) escaped, with a place to break after each comma and colon. */
export function escBreakable(text: string): string {
  return esc(text).replace(/([,:])/g, '$1<wbr>');
}
