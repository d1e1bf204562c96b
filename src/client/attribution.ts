// Honest per-chunk token counts (docs/method.md "Figures of a cell"). The total of a request is exact whenever the
// server reports usage; which chunk carried which token is exact only under continuous usage (one usage per
// chunk), or when every chunk can only hold one (tokens = chunks). Otherwise the ledger split the tokens by
// characters: the record says `chunkAttribution: 'estimated'` with `unpinnedTokens`, the tokens whose chunk is a
// guess. After a cell, off the timed path, the runner can make them exact with the server's tokenizer:
// count each distinct chunk text once and keep the counts when they add up to the server's own total.
import type { RequestRecord } from './types.js';

export type CountOf = (text: string) => number | undefined;

/** Distinct texts of the chunks whose counts are estimated (what to tokenize after the cell). */
export function textsToCount(records: readonly RequestRecord[], max = 20_000): string[] {
  const out = new Set<string>();
  for (const r of records) {
    if (r.chunkAttribution !== 'estimated' || !r.chunkTexts) continue;
    for (const t of r.chunkTexts) {
      out.add(t);
      if (out.size >= max) return [...out];
    }
  }
  return [...out];
}

/**
 * The record with exact per-chunk counts when the tokenizer's counts (each at least 1) add up to the server's
 * total; otherwise the record unchanged (still estimated). Tokenizing a chunk alone can differ from the
 * tokens the server generated (merges across a boundary); the sum check turns any such case into "estimated".
 */
export function pinChunkTokens(r: RequestRecord, countOf: CountOf): RequestRecord {
  if (r.chunkAttribution !== 'estimated' || !r.chunkTexts || r.chunkTexts.length !== r.chunks.length)
    return r;
  // Without the server's total (a request cut at the window close) the tokenizer's counts are the best there is:
  // they replace the character estimate, total included, and say so (tokenCountSource 'tokenize').
  const checkable = r.tokenCountSource !== 'estimate' && r.tokenCountSource !== 'none';
  const counts: number[] = [];
  let sum = 0;
  for (const t of r.chunkTexts) {
    const n = countOf(t);
    if (n === undefined || !Number.isInteger(n) || n < 1) return r;
    counts.push(n);
    sum += n;
  }
  if (checkable && sum !== r.outputTokens) return r;
  const out: RequestRecord = {
    ...r,
    chunks: r.chunks.map(([t], i) => [t, counts[i]!] as [number, number]),
    chunkAttribution: 'exact',
    ...(checkable ? {} : { outputTokens: sum, tokenCountSource: 'tokenize' as const }),
  };
  delete out.unpinnedTokens;
  return out;
}

/** Tokenize the distinct chunk texts (bounded), then pin every record that adds up. */
export async function pinCellChunkTokens(
  records: readonly RequestRecord[],
  tokenize: (text: string) => Promise<number | undefined>,
  opts: { maxTexts?: number; concurrency?: number } = {},
): Promise<RequestRecord[]> {
  const texts = textsToCount(records, opts.maxTexts);
  if (texts.length === 0) return [...records];
  const counts = new Map<string, number>();
  let next = 0;
  const worker = async () => {
    while (next < texts.length) {
      const t = texts[next++]!;
      const n = await safe(tokenize, t);
      if (n !== undefined) counts.set(t, n);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 8) }, worker));
  const o = perCallOverhead(records, counts);
  return records.map((r) => pinChunkTokens(r, (t) => (counts.has(t) ? counts.get(t)! - o : undefined)));
}

// A tokenize endpoint may add special tokens (BOS) to every text it counts: the overhead is the one most
// multi-chunk requests of the cell agree on, (sum of counts - server total) / chunks, an integer 0..2.
function perCallOverhead(records: readonly RequestRecord[], counts: Map<string, number>): number {
  const votes = new Map<number, number>();
  for (const r of records) {
    if (r.chunkAttribution !== 'estimated' || !r.chunkTexts || r.chunks.length < 2) continue;
    let sum = 0;
    for (const t of r.chunkTexts) sum += counts.get(t) ?? NaN;
    const o = (sum - r.outputTokens) / r.chunks.length;
    if (Number.isInteger(o) && o >= 0 && o <= 2) votes.set(o, (votes.get(o) ?? 0) + 1);
  }
  let best = 0;
  let most = 0;
  for (const [o, n] of votes) if (n > most) [best, most] = [o, n];
  return best;
}

/**
 * Bound of the error of a window's token count from estimated attribution: tokens whose chunk is a guess,
 * of the requests that have chunks on both sides of an edge (inside the window a guess moves nothing).
 */
export function windowTokenErrorBound(
  records: readonly Pick<RequestRecord, 'chunks' | 'chunkAttribution' | 'unpinnedTokens'>[],
  w: { openMs: number; closeMs: number },
): number {
  let bound = 0;
  for (const r of records) {
    if (r.chunkAttribution !== 'estimated' || !r.unpinnedTokens || r.chunks.length === 0) continue;
    let inside = 0;
    for (const [t] of r.chunks) if (t >= w.openMs && t < w.closeMs) inside++;
    if (inside > 0 && inside < r.chunks.length) bound += r.unpinnedTokens;
  }
  return bound;
}

async function safe(fn: (t: string) => Promise<number | undefined>, t: string): Promise<number | undefined> {
  try {
    const n = await fn(t);
    return n !== undefined && Number.isFinite(n) ? Math.round(n) : undefined;
  } catch {
    return undefined;
  }
}
