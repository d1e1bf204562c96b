// How a whole one-message prompt is counted with the server's tokenizer (docs/method.md "Prompts"): the
// factory's tokenizer search and the prompt bank's measurements both count this way.
import { buildPromptText } from './build.js';
import { calibrationSpec, DEFAULT_CHARS_PER_TOKEN, SMALL_PROBE_CHARS } from './calibrate.js';
import type { PromptFactoryOptions } from './types.js';

/**
 * The server's count of a whole one-message prompt by its tokenizer (template included: added from one probe
 * where the tokenizer counts the content alone), or undefined without a tokenizer.
 */
export function promptCounter(
  opts: PromptFactoryOptions,
  probe: (text: string) => Promise<number | undefined>,
  warn: (message: string) => void,
): ((text: string) => Promise<number | undefined>) | undefined {
  const tokenize = opts.tokenize;
  if (!tokenize) return undefined;
  if (!(opts.api === 'chat' && opts.tokenizeCoversTemplate === false)) return tokenize;
  let overhead: Promise<number> | undefined;
  return async (text: string) => {
    overhead ??= templateTokens(tokenize, probe, opts, warn);
    const [n, extra] = await Promise.all([tokenize(text), overhead]);
    return n === undefined ? undefined : n + extra;
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
