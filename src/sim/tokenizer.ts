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

// Whole tokens two texts start with (the token they differ in, or one next to it, is not counted: the count of the
// common characters takes a partial token or a trailing space as one, so one is taken off).
export function commonPrefixTokens(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let k = 0;
  while (k < n && a.charCodeAt(k) === b.charCodeAt(k)) k++;
  if (k === a.length && k === b.length) return countTokens(a);
  return Math.max(0, countTokens(a.slice(0, k)) - 1);
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

// The sim's chat template, shaped like a real one (a fixed start: BOS and a default system preamble; markers
// around each message; the generation prompt). Every marker is one sim token and markers are joined by
// whitespace, which adds no token, so the rendered prompt's count is start + per message + generation prompt +
// the content's tokens. The count is always taken on the rendered text, as servers do (a content ending in
// whitespace loses that token when a marker follows). The start is the same in every conversation: a prefix
// cache that works per token (llama.cpp) hits it on a cold prompt.
export interface ChatTemplate {
  startTokens: number;
  perMessageTokens: number; // at least 2: an opening role marker and a closing marker
  generationPromptTokens: number; // at least 1
}

export const DEFAULT_CHAT_TEMPLATE: ChatTemplate = {
  startTokens: 10,
  perMessageTokens: 3,
  generationPromptTokens: 2,
};

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

const marks = (n: number, mark: string) => Array.from({ length: Math.max(0, n) }, () => mark).join(' ');
const roleMark = (role: string) => `<${role.replace(/[^a-z]/gi, '').slice(0, 2) || 'x'}>`; // 1 token

// The text the engine "sees" for a chat request (GET /apply-template shows it); its token count is the prompt.
export function renderChat(messages: ChatMessage[], t: ChatTemplate = DEFAULT_CHAT_TEMPLATE): string {
  const parts: string[] = [];
  if (t.startTokens > 0)
    parts.push(Array.from({ length: t.startTokens }, (_, i) => `<s${i % 10}>`).join(' '));
  for (const m of messages) {
    const open = [roleMark(m.role), marks(t.perMessageTokens - 2, '<|>')].filter(Boolean).join(' ');
    parts.push(`${open}\n${messageText(m.content)}\n<e>`);
  }
  parts.push(['<as>', marks(t.generationPromptTokens - 1, '<|>')].filter(Boolean).join(' '));
  return parts.join('\n');
}

export function countChatTokens(messages: ChatMessage[], t: ChatTemplate = DEFAULT_CHAT_TEMPLATE): number {
  return countTokens(renderChat(messages, t));
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
