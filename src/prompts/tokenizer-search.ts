// Sizing with the server's tokenizer: a secant search on the character length until the counted prompt is within
// the tolerance of its target (docs/method.md "Prompts"). `count` counts the whole prompt the server will see.
import { buildPromptText, type PromptSpec } from './build.js';

const MAX_TOKENIZE_STEPS = 8;
// One step moves the length at most this factor either way: a count that does not follow the text (a proxy's
// or a broken endpoint's constant) would otherwise grow the prompt a thousandfold a step, past Node's string limit.
const MAX_STEP_FACTOR = 4;

export type SearchResult = { text: string; estTokens: number } | { failed: string };

export class TokenizerSearch {
  private readonly cptByContext = new Map<number, number>();
  private lastCpt: number;

  constructor(
    private readonly count: (text: string) => Promise<number | undefined>,
    private readonly tolerance: number,
    initialCharsPerToken: number,
  ) {
    this.lastCpt = initialCharsPerToken;
  }

  // `failed` when the tokenizer did not answer, or its count does not follow the text (the caller says so).
  async prompt(spec: PromptSpec): Promise<SearchResult> {
    const target = spec.contextTokens;
    const tolTokens = Math.max(1, Math.floor(target * this.tolerance));
    let cpt = this.cptByContext.get(target) ?? this.lastCpt;
    let chars = Math.round(target * cpt);
    let best: { text: string; n: number } | undefined;
    let prev: { length: number; n: number } | undefined;
    for (let step = 0; step < MAX_TOKENIZE_STEPS; step++) {
      const text = buildPromptText(spec, cpt, chars);
      const n = await this.count(text);
      if (n === undefined || !(n > 0)) return { failed: 'did not answer' };
      // Twice the text or more and the count did not move: it is not counting this text.
      if (prev && n === prev.n && Math.max(text.length / prev.length, prev.length / text.length) >= 2)
        return {
          failed: `counts ${n} tokens whatever the text (${prev.length} and ${text.length} characters alike)`,
        };
      prev = { length: text.length, n };
      if (!best || Math.abs(n - target) < Math.abs(best.n - target)) best = { text, n };
      if (Math.abs(n - target) <= tolTokens) break;
      cpt = text.length / n;
      const next = Math.round(text.length + (target - n) * cpt);
      chars = Math.max(
        1,
        Math.min(text.length * MAX_STEP_FACTOR, Math.max(text.length / MAX_STEP_FACTOR, next)),
      );
      chars = Math.round(chars);
    }
    if (!best) return { failed: 'did not answer' };
    this.lastCpt = best.text.length / best.n;
    this.cptByContext.set(target, this.lastCpt);
    return { text: best.text, estTokens: best.n };
  }
}
