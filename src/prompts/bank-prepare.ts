// The main thread's half of the prompt bank (docs/workloads.md "Prompts"): measure, once per run, what makes
// the bank's texts exact for this server: which short words its tokenizer counts as one token, the tokens of a
// one-message prompt's template and of the closing instruction. A handful of counts, whatever the workload:
// the server's tokenizer where it has one, else max_tokens 1 probes (their usage.prompt_tokens), else an estimate.
import type { PromptBankSnapshot } from './bank.js';
import { CLOSING_INSTRUCTION } from './build.js';
import { promptCounter } from './counter.js';
import type { PromptFactoryOptions, PromptSizing } from './types.js';
import { probePromptTokens } from './probe.js';
import { createRng } from './rng.js';
import { SHORT_WORDS } from './words.js';

type Count = (text: string) => Promise<number | undefined>;

// Two samples of running text; their difference gives tokens per word, the smaller the template's share.
const SMALL_WORDS = 512;
const LARGE_WORDS = 4096;
// Fewer words than this left after pruning and the vocabulary is not this tokenizer's: measure a ratio instead.
const MIN_WORDS = 64;

class CountFailed extends Error {}

const joined = (ws: readonly string[]) => ws.join(' ');

function sample(words: readonly string[], n: number, seed: number): string {
  const rng = createRng(seed ^ 0x5a3e);
  return Array.from({ length: n }, () => words[Math.floor(rng() * words.length)]!).join(' ');
}

async function must(count: Count, text: string): Promise<number> {
  const n = await count(text);
  if (n === undefined || !(n > 0)) throw new CountFailed();
  return n;
}

// The words each counted as one token (a text of them twice counts |words| more than once), found by halving
// the groups that count more, both halves at once: a group of one-token words costs 2 counts, a word of more
// about 2 log2(|words|). A group that counts fewer merges words (not a vocabulary question: measure() takes a
// ratio); one that counts a token more a word or worse is dropped whole; past a budget of counts the rest is
// kept as it is, so a tokenizer unlike any other costs a bounded number of counts.
const PRUNE_COUNTS = 256;

async function oneTokenWords(
  count: Count,
  words: readonly string[],
  budget = { left: PRUNE_COUNTS },
): Promise<string[]> {
  budget.left -= 2;
  const [once, twice] = await Promise.all([
    must(count, joined(words)),
    must(count, `${joined(words)} ${joined(words)}`),
  ]);
  const extra = twice - once - words.length;
  if (extra <= 0 || budget.left <= 0) return [...words];
  if (extra >= words.length) return [];
  const mid = Math.floor(words.length / 2);
  const [a, b] = await Promise.all([
    oneTokenWords(count, words.slice(0, mid), budget),
    oneTokenWords(count, words.slice(mid), budget),
  ]);
  return [...a, ...b];
}

async function measure(
  count: Count,
  seed: number,
  prune: boolean,
): Promise<Omit<PromptBankSnapshot, 'seed' | 'api' | 'sizing'>> {
  let words = prune ? await oneTokenWords(count, SHORT_WORDS) : [...SHORT_WORDS];
  if (words.length < MIN_WORDS) words = [...SHORT_WORDS];
  const small = sample(words, SMALL_WORDS, seed);
  const large = sample(words, LARGE_WORDS, seed + 1);
  const [cs, cl, cc] = await Promise.all([
    must(count, small),
    must(count, large),
    must(count, small + CLOSING_INSTRUCTION),
  ]);
  const exact = cl - cs === LARGE_WORDS - SMALL_WORDS;
  const tokensPerWord = exact ? 1 : (cl - cs) / (LARGE_WORDS - SMALL_WORDS);
  return {
    words,
    tokensPerWord,
    exact,
    templateTokens: Math.round(cs - SMALL_WORDS * tokensPerWord),
    closingTokens: cc - cs,
  };
}

export type PromptBankOptions = Pick<
  PromptFactoryOptions,
  | 'runId'
  | 'seed'
  | 'baseUrl'
  | 'apiKey'
  | 'model'
  | 'api'
  | 'tokenize'
  | 'tokenizeCoversTemplate'
  | 'probeTimeoutMs'
  | 'onWarning'
>;

/** The snapshot a PromptBank is built from, measured against the server (a few counts; see the header). */
export async function preparePromptBank(opts: PromptBankOptions): Promise<PromptBankSnapshot> {
  const warn = opts.onWarning ?? (() => {});
  const probe: Count = (text) => probePromptTokens(opts, text);
  const base = { seed: opts.seed, api: opts.api };
  const tokenizer = promptCounter(opts, probe, warn);
  const tries: Array<[PromptSizing, Count]> = [
    ...(tokenizer ? [['tokenize', tokenizer] as [PromptSizing, Count]] : []),
    ['calibration', probe],
  ];
  for (const [sizing, count] of tries) {
    try {
      const m = await measure(count, opts.seed, true);
      if (!m.exact)
        warn(
          `prompt sizing: this tokenizer counts ${m.tokensPerWord.toFixed(3)} tokens a word of the workload's ` +
            'text, not 1; its prompts are sized by that ratio and may miss their targets by about 1%',
        );
      return { ...base, ...m, sizing };
    } catch (e) {
      if (!(e instanceof CountFailed)) throw e;
      warn(
        sizing === 'tokenize'
          ? "prompt sizing: the server's tokenize endpoint did not answer for the workload's prompts; they are " +
              'sized by max_tokens 1 probes instead'
          : "prompt sizing: probes (max_tokens 1) got no usage.prompt_tokens; the workload's prompts are sized " +
              'at one token a word with no template, and may miss their targets by tens of tokens',
      );
    }
  }
  return {
    ...base,
    words: [...SHORT_WORDS],
    tokensPerWord: 1,
    exact: false,
    templateTokens: 0,
    closingTokens: Math.round(CLOSING_INSTRUCTION.length / 4),
    sizing: 'estimate',
  };
}
