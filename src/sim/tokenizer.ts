// The sim tokenizer (docs/sim.md): a token is optional leading whitespace plus 1..4 non-whitespace characters;
// trailing whitespace alone is one more token. About 4-5 characters per token on English-like text, exact and fast.
// Every count the sim reports (/tokenize, usage.prompt_tokens, max length checks) comes from here.

const isSpace = (c: number) => c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 11;

export function countTokens(text: string): number {
  let n = 0;
  let run = 0; // non-space chars in the current token
  let pendingSpace = false;
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) {
      run = 0;
      pendingSpace = true;
    } else {
      if (run === 0 || run === 4) {
        n++;
        run = 0;
      }
      run++;
      pendingSpace = false;
    }
  }
  return pendingSpace ? n + 1 : n;
}

// Hash per full block of blockSize tokens, each chained to the previous one (vLLM block hashing), for the prefix cache.
export function blockHashes(text: string, blockSize: number, salt = 0): number[] {
  const out: number[] = [];
  let h1 = (0x811c9dc5 ^ salt) >>> 0;
  let h2 = 0x01000193 ^ salt;
  let n = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      run = 0;
    } else {
      if (run === 0 || run === 4) {
        if (n > 0 && n % blockSize === 0) out.push((h1 >>> 0) * 0x200000 + (h2 >>> 11));
        n++;
        run = 0;
      }
      run++;
    }
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
  }
  if (n > 0 && n % blockSize === 0) out.push((h1 >>> 0) * 0x200000 + (h2 >>> 11));
  return out;
}

// Chat template of the sim: each message costs 4 tokens around its content, the generation prompt 3.
export const CHAT_TOKENS_PER_MESSAGE = 4;
export const CHAT_GENERATION_PROMPT_TOKENS = 3;

export interface ChatMessage {
  role: string;
  content: unknown;
}

export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p) =>
        p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string'
          ? (p as { text: string }).text
          : '',
      )
      .join('');
  }
  return '';
}

// The text the engine "sees" for a chat request; its token count is the chat prompt length.
export function renderChat(messages: ChatMessage[]): string {
  return messages.map((m) => `<|${m.role}|>\n${messageText(m.content)}`).join('\n');
}

export function countChatTokens(messages: ChatMessage[]): number {
  let n = CHAT_GENERATION_PROMPT_TOKENS;
  for (const m of messages) n += CHAT_TOKENS_PER_MESSAGE + countTokens(messageText(m.content));
  return n;
}

// Output vocabulary: each word is exactly one sim token, so received text retokenizes to the true count.
const CONTENT_WORDS = [
  ' the',
  ' sim',
  ' runs',
  ' fast',
  ' and',
  ' its',
  ' data',
  ' is',
  ' true',
  ' so',
  ' we',
  ' test',
  ' a',
  ' load',
  ' now',
  ' ok',
];
const REASONING_WORDS = [' hmm', ' let', ' me', ' see', ' step', ' one', ' two', ' then', ' plan', ' it'];

export function outputText(kind: 'content' | 'reasoning', startIndex: number, n: number): string {
  const words = kind === 'content' ? CONTENT_WORDS : REASONING_WORDS;
  let s = '';
  for (let i = 0; i < n; i++) s += words[(startIndex + i) % words.length]!;
  return s;
}
