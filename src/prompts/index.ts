// Prompts that hit their target token count (chat template included) within 1% (docs/method.md "Prompts"):
// the server's tokenizer when there is one (tokenizer-search.ts), counting the rendered conversation where the
// engine can render it and otherwise adding the template's tokens learnt from one probe request; else
// calibration probes (calibrate.ts). Any change of method mid-run is reported through onWarning, never silent.
import { fmtInt, fmtS } from '../format/index.js';
import { buildPromptText, type PromptSpec } from './build.js';
import { calibrate, DEFAULT_CHARS_PER_TOKEN, promptFromFit, type Fit } from './calibrate.js';
import { probePromptTokens } from './probe.js';
import { TokenizerSearch } from './tokenizer-search.js';
import { promptCounter } from './counter.js';
import type { PromptFactory, PromptFactoryOptions, PromptSizing } from './types.js';
import { checkOptions, keysOf } from '../option-keys.js';

export { buildPromptText, promptHead, CLOSING_INSTRUCTION } from './build.js';
export type { PromptSpec } from './build.js';
export { PromptBank } from './bank.js';
export type { PromptBankSnapshot, BankPrompt } from './bank.js';
export { preparePromptBank } from './bank-prepare.js';
export type { PromptBankOptions } from './bank-prepare.js';
export type { PromptRecipe, ChatMessage } from './recipe.js';

export type { PromptSizing, PromptFactory, PromptFactoryOptions } from './types.js';
export { promptCounter } from './counter.js';

const KEYS = keysOf<PromptFactoryOptions>({
  runId: true,
  seed: true,
  baseUrl: true,
  apiKey: true,
  model: true,
  api: true,
  tokenize: true,
  tokenizeCoversTemplate: true,
  tolerance: true,
  probeTimeoutMs: true,
  onWarning: true,
});

export async function createPromptFactory(opts: PromptFactoryOptions): Promise<PromptFactory> {
  checkOptions('createPromptFactory', opts, KEYS);
  const warn = opts.onWarning ?? (() => {});
  const probe = (text: string) => probePromptTokens(opts, text);
  let source: PromptSizing = opts.tokenize ? 'tokenize' : 'calibration';
  const count = promptCounter(opts, probe, warn);
  let search = count && new TokenizerSearch(count, opts.tolerance ?? 0.002, DEFAULT_CHARS_PER_TOKEN);
  let fit: Promise<Fit | undefined> | undefined;

  return {
    source: () => source,
    async prompt(contextTokens: number, slot: number) {
      const spec: PromptSpec = { runId: opts.runId, contextTokens, slot, seed: opts.seed };
      if (search) {
        const started = Date.now();
        const r = await search.prompt(spec);
        if (!('failed' in r)) return r;
        search = undefined;
        source = 'calibration';
        warn(
          `prompt sizing: the server's tokenize endpoint ${r.failed} for the ${fmtInt(contextTokens)}-token prompt ` +
            `(gave up after ${fmtS((Date.now() - started) / 1000)}); the remaining prompts are sized by ` +
            'calibration probes, which usually land within 2% of their targets',
        );
      }
      fit ??= calibrate(probe, opts.runId, opts.seed);
      const f = await fit;
      if (f) return promptFromFit(spec, f);
      if (source !== 'estimate')
        warn(
          'prompt sizing: calibration probes (max_tokens 1) got no usage.prompt_tokens; prompts are sized at ' +
            `${DEFAULT_CHARS_PER_TOKEN} characters per token and may miss their targets by far`,
        );
      source = 'estimate';
      const text = buildPromptText(spec, DEFAULT_CHARS_PER_TOKEN);
      return { text, estTokens: Math.round(text.length / DEFAULT_CHARS_PER_TOKEN) };
    },
  };
}
