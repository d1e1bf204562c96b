// Prompts that hit their target token count (chat template included) within 1% (docs/method.md "Prompts"):
// the server's tokenizer when there is one (tokenizer-search.ts), counting the rendered conversation where the
// engine can render it and otherwise adding the template's tokens learnt from one probe request; else
// calibration probes (calibrate.ts). Any change of method mid-run is reported through onWarning, never silent.
import { fmtInt, fmtS } from '../format/index.js';
import { buildPromptText, type PromptSpec } from './build.js';
import {
  calibrate,
  calibrationSpec,
  DEFAULT_CHARS_PER_TOKEN,
  promptFromFit,
  SMALL_PROBE_CHARS,
  type Fit,
} from './calibrate.js';
import { probePromptTokens } from './probe.js';
import { TokenizerSearch } from './tokenizer-search.js';
import { checkOptions, keysOf } from '../option-keys.js';

export { buildPromptText, promptHead, CLOSING_INSTRUCTION } from './build.js';
export type { PromptSpec } from './build.js';

export type PromptSizing = 'tokenize' | 'calibration' | 'estimate';

export interface PromptFactory {
  prompt(contextTokens: number, slot: number): Promise<{ text: string; estTokens: number }>;
  /** How the counts are known: 'tokenize' (exact), 'calibration' (probes), 'estimate' (probes failed). */
  readonly source: () => PromptSizing;
}

export interface PromptFactoryOptions {
  runId: string;
  seed: number;
  baseUrl: string;
  apiKey?: string;
  model: string;
  api: 'chat' | 'completions';
  tokenize?: (text: string) => Promise<number | undefined>;
  /** Chat only: false when `tokenize` counts the content alone (default true). */
  tokenizeCoversTemplate?: boolean;
  /** Tolerance of the tokenizer search as a fraction of the target (default 0.2%, well inside 1%). */
  tolerance?: number;
  probeTimeoutMs?: number;
  /** A change in how prompts are sized (tokenize failed, probes failed), in one line for the result. */
  onWarning?: (message: string) => void;
}

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
  let search: TokenizerSearch | undefined;
  if (opts.tokenize) {
    const tokenize = opts.tokenize;
    const needsTemplate = opts.api === 'chat' && opts.tokenizeCoversTemplate === false;
    let overhead: Promise<number> | undefined;
    const count = async (text: string) => {
      if (!needsTemplate) return tokenize(text);
      overhead ??= templateTokens(tokenize, probe, opts, warn);
      const [n, extra] = await Promise.all([tokenize(text), overhead]);
      return n === undefined ? undefined : n + extra;
    };
    search = new TokenizerSearch(count, opts.tolerance ?? 0.002, DEFAULT_CHARS_PER_TOKEN);
  }
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

// The chat template's tokens where the tokenizer counts only the content: the server's count of one probe prompt
// minus the tokenizer's count of its content. A template adds the same tokens to every one-message prompt.
async function templateTokens(
  tokenize: (text: string) => Promise<number | undefined>,
  probe: (text: string) => Promise<number | undefined>,
  opts: PromptFactoryOptions,
  warn: (message: string) => void,
): Promise<number> {
  const text = buildPromptText(
    calibrationSpec(opts.runId, opts.seed, 2),
    DEFAULT_CHARS_PER_TOKEN,
    SMALL_PROBE_CHARS,
  );
  const [whole, content] = await Promise.all([probe(text), tokenize(text)]);
  if (whole !== undefined && content !== undefined && whole >= content) return whole - content;
  warn(
    "prompt sizing: the chat template's tokens could not be measured (the probe request reported no " +
      'usage.prompt_tokens); prompts count their content only and may be short by the template',
  );
  return 0;
}
