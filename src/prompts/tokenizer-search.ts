// Sizing with the server's tokenizer: a secant search on the character length until the counted prompt is within
// the tolerance of its target (docs/method.md "Prompts"). `count` counts the whole prompt the server will see.
import { buildPromptText, type PromptSpec } from './build.js';

const MAX_TOKENIZE_STEPS = 8;

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

  // undefined when the tokenizer did not answer (the caller decides what to do, and says so).
  async prompt(spec: PromptSpec): Promise<{ text: string; estTokens: number } | undefined> {
    const target = spec.contextTokens;
    const tolTokens = Math.max(1, Math.floor(target * this.tolerance));
    let cpt = this.cptByContext.get(target) ?? this.lastCpt;
    let chars = Math.round(target * cpt);
    let best: { text: string; n: number } | undefined;
    for (let step = 0; step < MAX_TOKENIZE_STEPS; step++) {
      const text = buildPromptText(spec, cpt, chars);
      const n = await this.count(text);
      if (n === undefined || !(n > 0)) return undefined;
      if (!best || Math.abs(n - target) < Math.abs(best.n - target)) best = { text, n };
      if (Math.abs(n - target) <= tolTokens) break;
      cpt = text.length / n;
      chars = Math.max(1, Math.round(text.length + (target - n) * cpt));
    }
    if (!best) return undefined;
    this.lastCpt = best.text.length / best.n;
    this.cptByContext.set(target, this.lastCpt);
    return { text: best.text, estTokens: best.n };
  }
}
