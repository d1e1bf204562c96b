// Context labels (docs/method.md "Vocabulary": round(tokens / 1024) + "K"), the same in the live view, plan, reports
// and import.

export function contextLabel(tokens: number): string {
  // Below 1K a label in K would read "0K"; such contexts stay in tokens.
  if (tokens < 1024) return String(tokens);
  return `${Math.round(tokens / 1024)}K`;
}

/** A decode cell as people say it: `8K × 16` (context × simultaneous requests). */
export function cellName(c: { contextTokens: number; concurrency: number }): string {
  return `${contextLabel(c.contextTokens)} × ${c.concurrency}`;
}

/** Inverse of contextLabel for imported reports: `8K` → 8,192. */
export function parseContextLabel(label: string): number | undefined {
  const m = /^(\d+)(K?)$/.exec(label.trim());
  if (!m) return undefined;
  return Number(m[1]) * (m[2] ? 1024 : 1);
}

/**
 * How sure a KV capacity is, after its figure: nothing when exact (docs/engines.md "KV capacity: where it comes
 * from, and how sure").
 */
export function kvBoundNote(bound: 'exact' | 'lower-bound' | 'inferred' | undefined): string {
  if (bound === 'lower-bound') return ', a lower bound (the server may hold more)';
  if (bound === 'inferred') return ', inferred (the API cannot confirm it)';
  return '';
}
