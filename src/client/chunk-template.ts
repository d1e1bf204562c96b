// The hot-path fast path. Within one stream, token events are byte-identical except for the text value
// (same id, created, model, index, logprobs:null, finish_reason:null). After a full JSON.parse shows an
// event is a plain token event, its bytes around the text value become a template; a later event that
// starts with the same prefix and ends with the same suffix differs only inside that one JSON string, so
// its meaning is known without parsing: two string compares instead of JSON.parse. Anything else
// (usage, finish, error, other fields, changed timestamps) misses the template and takes the full parse.
// Matching works on the raw line bytes (memcmp), so a hit never decodes more than the text itself.
import type { FullChunk } from './full-chunk.js';

export interface TemplateHit {
  text: string;
  reasoningChars: number;
}

interface Template {
  prefix: Buffer;
  suffix: Buffer;
  reasoning: boolean;
}

const MAX_TEMPLATES = 4; // content and reasoning alternate; a per-second `created` (TGI) renews them
const FIELDS = ['content', 'reasoning', 'reasoning_content', 'text'] as const;

export class TemplateCache {
  private readonly templates: Template[] = [];

  /** `line[start, end)` is the data value of a single-line event (trailing whitespace already cut). */
  match(line: Buffer, start: number, end: number): TemplateHit | undefined {
    const ts = this.templates;
    for (let i = 0; i < ts.length; i++) {
      const t = ts[i]!;
      const p = t.prefix.length;
      const s = t.suffix.length;
      const holeEnd = end - s;
      if (holeEnd < start + p) continue;
      if (line.compare(t.prefix, 0, p, start, start + p) !== 0) continue;
      if (line.compare(t.suffix, 0, s, holeEnd, end) !== 0) continue;
      const text = decodeHole(line, start + p, holeEnd);
      if (text === undefined) return undefined;
      return { text, reasoningChars: t.reasoning ? text.length : 0 };
    }
    return undefined;
  }

  /** Learn from an event the full parse found to be a plain token event (`c`, from the parsed `o`). */
  learn(d: string, o: unknown, c: FullChunk): void {
    if (c.text === '' || c.error || c.usage || c.finishReason !== undefined) return;
    if (c.predictedTokens !== undefined || c.cacheN !== undefined) return;
    const choices = (o as { choices?: unknown }).choices;
    if (!Array.isArray(choices) || choices.length !== 1) return;
    const ch = choices[0] as Record<string, unknown>;
    const holder = (typeof ch.delta === 'object' && ch.delta !== null ? ch.delta : ch) as Record<
      string,
      unknown
    >;
    let field: (typeof FIELDS)[number] | undefined;
    for (const f of FIELDS) {
      const v = holder[f];
      if (typeof v === 'string' && v !== '') {
        if (field !== undefined) return; // two text fields: the template would see only one
        field = f;
      }
    }
    if (field === undefined || holder[field] !== c.text) return;
    const key = `"${field}":"`;
    const at = d.indexOf(key);
    if (at === -1 || d.indexOf(key, at + key.length) !== -1) return;
    const start = at + key.length;
    const close = closingQuote(d, start);
    if (close === -1 || decodeJsonStringBody(d.slice(start, close)) !== c.text) return;
    const prefix = Buffer.from(d.slice(0, start));
    const suffix = Buffer.from(d.slice(close));
    if (this.templates.some((t) => t.prefix.equals(prefix) && t.suffix.equals(suffix))) return;
    this.templates.unshift({
      prefix,
      suffix,
      reasoning: field === 'reasoning' || field === 'reasoning_content',
    });
    if (this.templates.length > MAX_TEMPLATES) this.templates.pop();
  }
}

function closingQuote(d: string, from: number): number {
  let q = d.indexOf('"', from);
  while (q !== -1) {
    let bs = 0;
    for (let k = q - 1; k >= from && d.charCodeAt(k) === 92; k--) bs++;
    if ((bs & 1) === 0) return q;
    q = d.indexOf('"', q + 1);
  }
  return -1;
}

// Plain bytes (no quote, backslash or control byte) are the text as they are; anything else goes
// through JSON.parse of the quoted string, which also rejects a hole that is not exactly one string.
function decodeHole(line: Buffer, from: number, to: number): string | undefined {
  for (let i = from; i < to; i++) {
    const b = line[i]!;
    if (b < 0x20 || b === 0x22 || b === 0x5c) return decodeJsonStringBody(line.toString('utf8', from, to));
  }
  return line.toString('utf8', from, to);
}

// The body of a JSON string literal (without quotes), or undefined when it is not exactly one valid string.
function decodeJsonStringBody(raw: string): string | undefined {
  let plain = raw.indexOf('"') === -1 && raw.indexOf('\\') === -1;
  if (plain) {
    for (let i = 0; i < raw.length; i++) {
      if (raw.charCodeAt(i) < 0x20) {
        plain = false;
        break;
      }
    }
  }
  if (plain) return raw;
  try {
    const v: unknown = JSON.parse(`"${raw}"`);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}
