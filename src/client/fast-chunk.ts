// Fast path for the common token chunk: find the delta text with indexOf instead of JSON.parse.
// It answers only when it is sure; `undefined` means "take the full parse". Being sure rests on one fact:
// inside a JSON string every '"' is escaped, so an unescaped `"usage"`, `"error"` or `"delta":{` in the
// text can only be a real key (or a key with escaped quotes: a false alarm that merely costs a full parse).
export interface FastChunk {
  text: string; // content + reasoning text of this event ('' for role-only chunks)
  reasoningChars: number; // chars of `text` that came from reasoning / reasoning_content
}

const DELTA = '"delta":{';
const TEXT = '"text":"';

export function fastChunk(d: string): FastChunk | undefined {
  const n = d.length;
  if (n < 2 || d.charCodeAt(0) !== 123 || d.charCodeAt(n - 1) !== 125) return undefined;
  if (d.indexOf('"error"') !== -1) return undefined;
  if (!isNullOrAbsent(d, '"usage"')) return undefined;
  if (!isNullOrAbsent(d, '"finish_reason"')) return undefined;
  const delta = d.indexOf(DELTA);
  if (delta !== -1) {
    if (d.indexOf('"delta"', delta + DELTA.length) !== -1) return undefined; // several choices
    return deltaMembers(d, delta + DELTA.length);
  }
  const t = d.indexOf(TEXT);
  if (t === -1 || d.indexOf('"text"', t + TEXT.length) !== -1) return undefined;
  if (!isNullOrAbsent(d, '"logprobs"')) return undefined;
  const end = stringEnd(d, t + TEXT.length - 1);
  if (end === -1) return undefined;
  const text = stringValue(d, t + TEXT.length - 1, end);
  return text === undefined ? undefined : { text, reasoningChars: 0 };
}

// `key` absent, or present once with a null value.
function isNullOrAbsent(d: string, key: string): boolean {
  const i = d.indexOf(key);
  if (i === -1) return true;
  const v = i + key.length;
  if (!(d.charCodeAt(v) === 58 && d.startsWith('null', v + 1))) return false;
  return d.indexOf(key, v) === -1;
}

// Index of the closing quote of the string opening at `open`, or -1.
function stringEnd(d: string, open: number): number {
  let q = d.indexOf('"', open + 1);
  while (q !== -1) {
    let bs = 0;
    for (let k = q - 1; d.charCodeAt(k) === 92; k--) bs++;
    if ((bs & 1) === 0) return q;
    q = d.indexOf('"', q + 1);
  }
  return -1;
}

function stringValue(d: string, open: number, close: number): string | undefined {
  const raw = d.slice(open + 1, close);
  if (raw.indexOf('\\') === -1) return raw;
  try {
    return JSON.parse(d.slice(open, close + 1)) as string;
  } catch {
    return undefined;
  }
}

// Members of a flat delta object: string or null values only; any other shape (tool calls, numbers,
// nested objects) is left to the full parse.
function deltaMembers(d: string, p: number): FastChunk | undefined {
  let text = '';
  let reasoningChars = 0;
  for (;;) {
    const c = d.charCodeAt(p);
    if (c === 125) return { text, reasoningChars };
    if (c !== 34) return undefined;
    const keyEnd = d.indexOf('"', p + 1);
    if (keyEnd === -1 || d.charCodeAt(keyEnd + 1) !== 58) return undefined;
    const key = d.slice(p + 1, keyEnd);
    const v = keyEnd + 2;
    let value: string | undefined;
    if (d.charCodeAt(v) === 34) {
      const close = stringEnd(d, v);
      if (close === -1) return undefined;
      value = stringValue(d, v, close);
      if (value === undefined) return undefined;
      p = close + 1;
    } else if (d.startsWith('null', v)) {
      p = v + 4;
    } else {
      return undefined;
    }
    if (value !== undefined && value !== '') {
      if (key === 'content') text += value;
      else if (key === 'reasoning' || key === 'reasoning_content') {
        text += value;
        reasoningChars += value.length;
      } else if (key !== 'role') return undefined; // refusal, tool text...: let the full parse decide
    }
    const sep = d.charCodeAt(p);
    if (sep === 44) p++;
    else if (sep !== 125) return undefined;
  }
}
