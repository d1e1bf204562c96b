import { createPromptFactory } from '../prompts/index.js';
import type { TargetInfo } from '../target/types.js';
import type { PromptSource } from './drive/context.js';

// The prompt factory (src/prompts) with the target's tokenizer when it has one; prompts are cached per
// (context, slot) so a slot's text is built once and reused by every cell of its context.
export async function createPromptSource(o: {
  runId: string;
  seed: number;
  baseUrl: string;
  apiKey?: string;
  info: TargetInfo;
  api: 'chat' | 'completions';
  onWarning?: (message: string) => void; // a change in how prompts are sized (prompts/index.ts)
}): Promise<PromptSource> {
  const tokenize = o.info.tokenize;
  const factory = await createPromptFactory({
    runId: o.runId,
    seed: o.seed,
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    model: o.info.model,
    api: o.api,
    ...(tokenize ? { tokenize: (text: string) => tokenize(text, o.api) } : {}),
    ...(o.info.tokenizeCoversTemplate !== undefined
      ? { tokenizeCoversTemplate: o.info.tokenizeCoversTemplate }
      : {}),
    ...(o.onWarning ? { onWarning: o.onWarning } : {}),
  });
  // Only the current context's prompts are kept: contexts run in order, and 1M-token texts are large.
  let cachedContext = -1;
  const cache = new Map<number, Promise<{ text: string; estTokens: number }>>();
  return {
    prompt(contextTokens: number, slot: number): Promise<{ text: string; estTokens: number }> {
      if (contextTokens !== cachedContext) {
        cache.clear();
        cachedContext = contextTokens;
      }
      let p = cache.get(slot);
      if (!p) {
        p = factory.prompt(contextTokens, slot);
        cache.set(slot, p);
      }
      return p;
    },
  };
}
