// Token attribution to chunks (docs/method.md "Figures of a cell"). Each usage report closes an interval:
// its completion-token delta goes to the token-bearing chunks received since the previous report.
// - Continuous usage (vLLM/SGLang/TRT-LLM `continuous_usage_stats`): one chunk per interval -> exact.
// - Final usage only: one interval holding every chunk. Each chunk gets 1 token when the total allows
//   (the usual one-token-per-event case stays exact), the remainder goes proportional to the chunk's
//   characters by cumulative rounding, so the integer total is exactly the server's but the split is an
//   estimate: those remainder tokens are counted as `unpinned` (attribution.ts can pin them after the cell).
// - Tokens reported while no new text arrived (special tokens, EOS) join the latest chunk.
// Chunks never covered by usage (aborted at window close, no usage offered) are counted by the caller's
// fallback (tokenize, else estimate) with the same distribution rule.
export type TokenSource = 'continuous_usage' | 'final_usage' | 'tokenize' | 'estimate' | 'none';

export class TokenLedger {
  readonly chunks: Array<[number, number]> = [];
  private readonly chars: number[] = [];
  private readonly reasoning: boolean[] = [];
  private readonly texts: string[] | undefined;
  private covered = 0;
  private lastCum = 0;
  private carry = 0;
  private usageReports = 0;
  private maxPerInterval = 0;
  private unpinned = 0; // tokens whose chunk is a guess (split by characters)

  constructor(keepText: boolean) {
    this.texts = keepText ? [] : undefined;
  }

  add(arrivalMs: number, text: string, reasoningChars: number): void {
    this.chunks.push([arrivalMs, 0]);
    this.chars.push(text.length);
    this.reasoning.push(reasoningChars * 2 > text.length);
    this.texts?.push(text);
  }

  /** Cumulative completion tokens as reported by the server. */
  usage(completionTokens: number): void {
    const delta = completionTokens - this.lastCum;
    if (delta < 0) return; // a non-cumulative or repeated report: keep the larger count
    this.lastCum = completionTokens;
    this.usageReports++;
    this.maxPerInterval = Math.max(this.maxPerInterval, this.chunks.length - this.covered);
    this.distribute(delta, this.chunks.length);
  }

  get uncoveredChunks(): number {
    return this.chunks.length - this.covered;
  }

  get sawUsage(): boolean {
    return this.usageReports > 0;
  }

  /** Characters and text of the chunks no usage report covered. */
  uncoveredChars(): number {
    let s = 0;
    for (let i = this.covered; i < this.chars.length; i++) s += this.chars[i]!;
    return s;
  }

  uncoveredText(): string | undefined {
    return this.texts?.slice(this.covered).join('');
  }

  text(): string | undefined {
    return this.texts?.join('');
  }

  /** Close the remaining interval with a count from a fallback. */
  closeWith(tokens: number): void {
    this.distribute(tokens, this.chunks.length);
  }

  source(fallback: TokenSource | undefined): TokenSource {
    if (this.chunks.length === 0 && this.lastCum === 0) return 'none';
    if (fallback !== undefined) return fallback;
    return this.usageReports > 1 && this.maxPerInterval <= 1 ? 'continuous_usage' : 'final_usage';
  }

  total(): number {
    let s = 0;
    for (const c of this.chunks) s += c[1];
    return s;
  }

  /** Exact when every token's chunk is known; otherwise the tokens placed by the character split. */
  attribution(): { exact: boolean; unpinnedTokens: number } {
    return { exact: this.unpinned === 0, unpinnedTokens: this.unpinned };
  }

  chunkTexts(): string[] | undefined {
    return this.texts;
  }

  reasoningTokens(): number {
    let s = 0;
    for (let i = 0; i < this.chunks.length; i++) if (this.reasoning[i]) s += this.chunks[i]![1];
    return s;
  }

  private distribute(tokens: number, to: number): void {
    const from = this.covered;
    const n = to - from;
    if (n === 0) {
      const last = this.chunks[to - 1];
      if (last) last[1] += tokens;
      else this.carry += tokens;
      return;
    }
    tokens += this.carry;
    this.carry = 0;
    this.covered = to;
    if (n === 1) {
      this.chunks[from]![1] += tokens;
      return;
    }
    const base = tokens >= n ? 1 : 0;
    const rest = tokens - base * n;
    // Each token-bearing chunk holds at least one token; only the rest is placed by characters. Fewer
    // tokens than chunks cannot be true of a real stream: then every placement is a guess.
    this.unpinned += base === 1 ? rest : tokens;
    let totalChars = 0;
    for (let i = from; i < to; i++) totalChars += this.chars[i]!;
    let cum = 0;
    let given = 0;
    for (let i = from; i < to; i++) {
      cum += totalChars > 0 ? this.chars[i]! : 1;
      const upTo = Math.round((rest * cum) / (totalChars > 0 ? totalChars : n));
      this.chunks[i]![1] += base + upTo - given;
      given = upTo;
    }
  }
}
