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

// Token ids: a token is its non-whitespace characters and whether whitespace came before it (which whitespace
// does not matter), so an answer the sim generated as " the sim" and the same words a chat template puts after a
// newline are the same tokens, as a real engine's ids are when a client sends its answer back (docs/sim.md "The
// sim tokenizer"). Each id is a 53-bit hash of that key; block hashes chain ids (vLLM's block hashing).
const TOKEN_SEED_1 = 0x811c9dc5;
const TOKEN_SEED_2 = 0x01000193;
const step1 = (h: number, c: number) => Math.imul(h ^ c, 0x01000193);
const step2 = (h: number, c: number) => Math.imul(h ^ c, 0x5bd1e995) ^ (h >>> 15);
const join53 = (h1: number, h2: number) => (h1 >>> 0) * 0x200000 + (h2 >>> 11);
const SPACE_ID = join53(step1(TOKEN_SEED_1, 32), step2(TOKEN_SEED_2, 32));

// One id per token, in order (countTokens(text) of them).
export function tokenIds(text: string): Float64Array {
  const ids = new Float64Array(countTokens(text));
  let n = 0;
  let h1 = 0;
  let h2 = 0;
  let run = 0; // non-space chars in the open token
  let open = false;
  let space = false; // whitespace since the last token
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      if (open) ids[n++] = join53(h1, h2);
      open = false;
      run = 0;
      space = true;
      continue;
    }
    if (run === 4) {
      ids[n++] = join53(h1, h2);
      open = false;
      run = 0;
    }
    if (!open) {
      h1 = space ? step1(TOKEN_SEED_1, 32) : TOKEN_SEED_1;
      h2 = space ? step2(TOKEN_SEED_2, 32) : TOKEN_SEED_2;
      open = true;
      space = false;
    }
    h1 = step1(h1, c);
    h2 = step2(h2, c);
    run++;
  }
  if (open) ids[n] = join53(h1, h2);
  else if (space) ids[n] = SPACE_ID; // trailing whitespace alone is one more token
  return ids;
}

// Tokens two id sequences start with in common.
export function commonPrefix(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let k = 0;
  while (k < n && a[k] === b[k]) k++;
  return k;
}

// The hash of one block of ids [from, to), chained to the hash of the block before it (0 for the first).
export function chainBlockHash(prev: number, ids: ArrayLike<number>, from: number, to: number): number {
  const hi = Math.floor(prev / 0x200000);
  let h1 = (0x811c9dc5 ^ hi) >>> 0;
  let h2 = 0x01000193 ^ (prev - hi * 0x200000);
  for (let i = from; i < to; i++) {
    const id = ids[i]!;
    const top = Math.floor(id / 0x200000);
    h1 = step2(step1(h1, top), id - top * 0x200000);
    h2 = step2(h2, top ^ (id - top * 0x200000));
  }
  return join53(h1, h2);
}

// Hash per full block of blockSize ids, each chained to the previous one, for the prefix cache.
export function blockHashesOf(ids: ArrayLike<number>, blockSize: number): number[] {
  const out: number[] = [];
  let prev = 0;
  for (let from = 0; from + blockSize <= ids.length; from += blockSize) {
    prev = chainBlockHash(prev, ids, from, from + blockSize);
    out.push(prev);
  }
  return out;
}

export function blockHashes(text: string, blockSize: number): number[] {
  return blockHashesOf(tokenIds(text), blockSize);
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

const CONTENT_IDS = CONTENT_WORDS.map((w) => tokenIds(w)[0]!);
const REASONING_IDS = REASONING_WORDS.map((w) => tokenIds(w)[0]!);

// The id of a request's generated token `index` (0-based): the first `reasoningTokens` are reasoning words, the
// rest content words, each word one token, as outputText writes them.
export function outputTokenId(index: number, reasoningTokens: number): number {
  return index < reasoningTokens
    ? REASONING_IDS[index % REASONING_IDS.length]!
    : CONTENT_IDS[(index - reasoningTokens) % CONTENT_IDS.length]!;
}

export function outputText(kind: 'content' | 'reasoning', startIndex: number, n: number): string {
  const words = kind === 'content' ? CONTENT_WORDS : REASONING_WORDS;
  let s = '';
  for (let i = 0; i < n; i++) s += words[(startIndex + i) % words.length]!;
  return s;
}
