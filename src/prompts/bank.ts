// Prompt text from recipes (docs/workloads.md "Prompts"), synchronously, from a plain-data snapshot that the main
// thread prepared with the server's tokenizer (bank-prepare.ts): worker threads and agents have no tokenizer,
// and rebuild the same texts from the same snapshot. Texts are runs of short words, each one token, so a block
// of N tokens is N words; equal (salt, id) give equal blocks, and a cut block is a prefix of the whole one.
import { CLOSING_INSTRUCTION } from './build.js';
import type { ChatMessage, PromptRecipe } from './recipe.js';
import { createRng, hashString } from './rng.js';
import type { PromptSizing } from './types.js';

export interface PromptBankSnapshot {
  seed: number;
  api: 'chat' | 'completions';
  /** The vocabulary: words the server counts as one token each after a space. */
  words: string[];
  /** Tokens per word of running text: 1 where `exact`, else measured (a tokenizer that merges words). */
  tokensPerWord: number;
  exact: boolean;
  /** Tokens of a one-message prompt beyond its content's words: the chat template (or a BOS token). */
  templateTokens: number;
  /** Tokens of the closing instruction that ends a unique prompt and every user message. */
  closingTokens: number;
  /** How the counts above were taken (src/prompts/index.ts). */
  sizing: PromptSizing;
}

export interface BankPrompt {
  /** The whole prompt as one text: what the completions API is sent; a one-message chat's content. */
  text: string;
  /** A conversation on the chat API: the messages to send instead of one user message. */
  messages?: ChatMessage[];
}

export class PromptBank {
  private readonly words: readonly string[];

  constructor(readonly snapshot: PromptBankSnapshot) {
    if (snapshot.words.length === 0) throw new Error('a prompt bank needs at least one word');
    this.words = snapshot.words;
  }

  /** Words that make `tokens` tokens of running text (at least one). */
  wordsFor(tokens: number): number {
    const s = this.snapshot;
    return Math.max(1, Math.round(s.exact ? tokens : tokens / s.tokensPerWord));
  }

  /**
   * The prompt of a recipe. A turn needs the answers the server gave to the conversation's earlier turns, in
   * order (the chat API gets them as assistant messages, the completions API appended to the text).
   */
  prompt(r: PromptRecipe, answers: readonly string[] = []): BankPrompt {
    const s = this.snapshot;
    switch (r.kind) {
      case 'slot':
        throw new Error("the fixed workload's slot prompts come from createPromptFactory, not the bank");
      case 'unique':
        return { text: this.tail(`${r.salt}|u`, r.index, r.tokens - s.templateTokens) };
      case 'prefixed': {
        const head = this.run(
          `${r.salt}|p|${r.prefix}`,
          this.wordsFor(r.prefixTokens),
          this.opener(`${r.salt}|p`, r.prefix),
        );
        return {
          text: `${head} ${this.tail(`${r.salt}|u`, r.index, r.tokens - s.templateTokens - r.prefixTokens)}`,
        };
      }
      case 'blocks':
        return {
          text: this.blocks(
            r.salt,
            r.ids,
            this.wordsFor(r.blockTokens),
            this.wordsFor(r.tokens - s.templateTokens),
          ),
        };
      case 'turn':
        return this.turn(r, answers);
    }
  }

  // A unique text of `tokens` (its first word distinct per index of the key) ending with the closing
  // instruction, which is left out where it would not leave one word before it.
  private tail(key: string, index: number | undefined, tokens: number): string {
    const closing = this.snapshot.closingTokens;
    const first = index === undefined ? undefined : this.opener(key, index);
    const own = `${key}|${index ?? ''}`;
    if (tokens - closing < 1) return this.run(own, this.wordsFor(tokens), first);
    return this.run(own, this.wordsFor(tokens - closing), first) + CLOSING_INSTRUCTION;
  }

  // A distinct first word per index for the first |words| indexes of a salt: neighbours share no first token.
  private opener(base: string, index: number): number {
    return (hashString(`${this.snapshot.seed}|${base}`) + index) % this.words.length;
  }

  // `n` words drawn from the key's stream (the first one fixed where given): the first k of a longer run are the
  // run of k, so a cut block is a prefix of the whole one.
  private run(key: string, n: number, first?: number): string {
    const rng = createRng(hashString(`${this.snapshot.seed}|${key}`));
    const w = this.words;
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++)
      out[i] = w[i === 0 && first !== undefined ? first : Math.floor(rng() * w.length)]!;
    return out.join(' ');
  }

  private blocks(salt: string, ids: readonly number[], perBlock: number, total: number): string {
    const parts: string[] = [];
    let left = total;
    for (const id of ids) {
      if (left <= 0) break;
      const n = Math.min(perBlock, left);
      parts.push(this.run(`${salt}|b|${id}`, n));
      left -= n;
    }
    return parts.join(' ');
  }

  private turn(r: Extract<PromptRecipe, { kind: 'turn' }>, answers: readonly string[]): BankPrompt {
    if (answers.length < r.turn - 1)
      throw new Error(`turn ${r.turn} needs the ${r.turn - 1} earlier answers, got ${answers.length}`);
    // Message t of each conversation: its first word steps by the conversation, the rest its own.
    const user = (t: number) => this.tail(`${r.salt}|m|${t}`, r.conversation, r.messageTokens);
    const messages: ChatMessage[] = [];
    if (r.systemTokens > 0)
      messages.push({ role: 'system', content: this.run(`${r.salt}|system`, this.wordsFor(r.systemTokens)) });
    for (let t = 1; t <= r.turn; t++) {
      messages.push({ role: 'user', content: user(t) });
      if (t < r.turn) messages.push({ role: 'assistant', content: answers[t - 1]! });
    }
    // One text: turn t's is turn t - 1's, its answer as the server continued it, and the next message.
    let text = '';
    for (const m of messages)
      text += m.role === 'assistant' ? m.content : `${text ? '\n\n' : ''}${m.content}`;
    return this.snapshot.api === 'chat' ? { text, messages } : { text };
  }
}
