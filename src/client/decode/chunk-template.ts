// The hot-path fast path. Within one stream, token events are byte-identical except for a few values: the
// text (content, reasoning, completions `text`), and numbers (cumulative usage under continuous usage
// stats, a per-second `created`, TensorRT-LLM's `avg_decoded_tokens_per_iter`). After a full JSON.parse
// shows an event is a plain token event, its bytes become a template: literal runs with holes for the text
// values and for every number. A later event that matches every literal run differs only inside the holes,
// so its meaning is known without parsing: a few memcmps, a quote search and a digit scan instead of
// JSON.parse. The cumulative completion count is read from its hole's bytes. Anything else (first, finish,
// usage-only, error, other fields, a changed id) misses every template and takes the full parse, which
// learns a new template when the event is a plain token event.
import type { FullChunk } from './full-chunk.js';

export interface TemplateHit {
  text: string;
  reasoningChars: number;
  completionTokens?: number; // cumulative usage carried by the event (continuous usage stats)
}

// Hole kinds. A reasoning alias is vLLM sending `reasoning` and `reasoning_content` with the same text.
const NUM = 0;
const USAGE = 1; // usage.completion_tokens
const CONTENT = 2;
const REASONING = 3;
const TEXT = 4;
const ALIAS = 5;

interface Template {
  lits: Buffer[]; // lits.length === holes.length + 1
  holes: number[];
}

const MAX_TEMPLATES = 4; // content and reasoning alternate; a usage-only or role chunk never becomes one
const TEXT_KEYS: Record<string, number> = {
  content: CONTENT,
  reasoning: REASONING,
  reasoning_content: REASONING,
  text: TEXT,
};
// Numbers that change from one token event to the next; any other number stays literal (a change there,
// like TGI's per-second `created`, costs one full parse and a new template).
const VARYING = new Set([
  'completion_tokens',
  'total_tokens',
  'reasoning_tokens',
  'avg_decoded_tokens_per_iter',
]);
const SHORT = 24; // literals up to this long are compared in JS: cheaper than a call into Buffer.compare
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export class TemplateCache {
  private readonly templates: Template[] = [];
  // Hole bounds of the current match, reused: no allocation per event.
  private readonly from: number[] = [];
  private readonly to: number[] = [];
  private readonly escaped: boolean[] = [];

  /** `line[start, end)` is the data value of a single-line event (trailing whitespace already cut). */
  match(line: Buffer, start: number, end: number): TemplateHit | undefined {
    const ts = this.templates;
    for (let i = 0; i < ts.length; i++) {
      const t = ts[i]!;
      if (this.bounds(t, line, start, end)) return this.read(t, line);
    }
    return undefined;
  }

  /** Learn from an event the full parse found to be a plain token event (`c`, from the parsed `o`). */
  learn(d: string, o: unknown, c: FullChunk): void {
    if (c.text === '' || c.error || c.finishReason !== undefined) return;
    if (c.predictedTokens !== undefined || c.cacheN !== undefined) return;
    if (c.usage && c.usage.completionTokens === undefined) return;
    const choices = (o as { choices?: unknown }).choices;
    if (!Array.isArray(choices) || choices.length !== 1) return;
    const t = templateOf(d);
    if (t === undefined) return;
    // The template must read back exactly what the full parse read, or it is not used.
    const line = Buffer.from(d);
    if (!this.bounds(t, line, 0, line.length)) return;
    const hit = this.read(t, line);
    if (hit === undefined || hit.text !== c.text || hit.completionTokens !== c.usage?.completionTokens)
      return;
    if (this.templates.some((x) => sameTemplate(x, t))) return;
    this.templates.unshift(t);
    if (this.templates.length > MAX_TEMPLATES) this.templates.pop();
  }

  // Every literal run in place, every hole well-formed; fills this.from / this.to.
  private bounds(t: Template, line: Buffer, start: number, end: number): boolean {
    const lits = t.lits;
    let pos = start;
    for (let h = 0; ; h++) {
      const lit = lits[h]!;
      const n = lit.length;
      if (pos + n > end) return false;
      if (n <= SHORT) {
        for (let k = 0; k < n; k++) if (line[pos + k] !== lit[k]) return false;
      } else if (line.compare(lit, 0, n, pos, pos + n) !== 0) return false;
      pos += n;
      if (h === t.holes.length) return pos === end;
      const kind = t.holes[h]!;
      this.from[h] = pos;
      if (kind <= USAGE) {
        pos = numberEnd(line, pos, end);
      } else {
        // One pass to the closing quote; a backslash sends the text through JSON.parse later.
        let esc = false;
        for (;;) {
          if (pos >= end) return false;
          const b = line[pos]!;
          if (b === QUOTE) break;
          if (b === BACKSLASH) {
            esc = true;
            pos += 2;
            continue;
          }
          if (b < 0x20) return false; // not valid JSON: the full parse reports it
          pos++;
        }
        this.escaped[h] = esc;
      }
      if (pos < 0) return false;
      this.to[h] = pos;
    }
  }

  private read(t: Template, line: Buffer): TemplateHit | undefined {
    let reasoning = '';
    let content = '';
    let text = '';
    let completionTokens: number | undefined;
    let aliasAt = -1;
    let reasoningAt = -1;
    for (let h = 0; h < t.holes.length; h++) {
      const kind = t.holes[h]!;
      const a = this.from[h]!;
      const b = this.to[h]!;
      if (kind === NUM) continue;
      if (kind === USAGE) {
        completionTokens = digits(line, a, b);
        if (completionTokens === undefined) return undefined;
        continue;
      }
      if (kind === ALIAS) {
        aliasAt = h;
        continue;
      }
      const s = this.escaped[h] ? decodeEscaped(line, a, b) : line.toString('utf8', a, b);
      if (s === undefined) return undefined;
      if (kind === CONTENT) content = s;
      else if (kind === TEXT) text = s;
      else {
        reasoning = s;
        reasoningAt = h;
      }
    }
    // The alias must repeat the reasoning text; otherwise the full parse decides which one counts.
    if (aliasAt !== -1 && (reasoningAt === -1 || !this.sameHoles(line, reasoningAt, aliasAt)))
      return undefined;
    const hit: TemplateHit = { text: reasoning + content + text, reasoningChars: reasoning.length };
    if (completionTokens !== undefined) hit.completionTokens = completionTokens;
    return hit;
  }

  private sameHoles(line: Buffer, h1: number, h2: number): boolean {
    const a = this.from[h1]!;
    const b = this.to[h1]!;
    const x = this.from[h2]!;
    const y = this.to[h2]!;
    return b - a === y - x && line.compare(line, x, y, a, b) === 0;
  }
}

// Literal runs and holes of one event's JSON text: holes for every number and for the non-empty values of
// the text keys. Undefined when the shape is ambiguous (a text key twice, two completion counts).
function templateOf(d: string): Template | undefined {
  const lits: Buffer[] = [];
  const holes: number[] = [];
  let litStart = 0;
  let lastKey = '';
  let usageHoles = 0;
  const seen = new Set<number>();
  let i = 0;
  while (i < d.length) {
    const ch = d.charCodeAt(i);
    if (ch === QUOTE) {
      const close = closingQuote(d, i + 1);
      if (close === -1) return undefined;
      let j = close + 1;
      while (j < d.length && (d.charCodeAt(j) === 32 || d.charCodeAt(j) === 9)) j++;
      if (d.charCodeAt(j) === 58 /* : */) {
        lastKey = d.slice(i + 1, close);
      } else {
        let kind = TEXT_KEYS[lastKey];
        if (kind !== undefined && close > i + 1) {
          if (kind === REASONING && seen.has(REASONING)) kind = ALIAS;
          else if (seen.has(kind)) return undefined;
          seen.add(kind);
          lits.push(Buffer.from(d.slice(litStart, i + 1)));
          holes.push(kind);
          litStart = close;
        }
      }
      i = close + 1;
      continue;
    }
    if (ch === 45 /* - */ || (ch >= 48 && ch <= 57)) {
      let j = i + 1;
      while (j < d.length && isNumberChar(d.charCodeAt(j))) j++;
      if (!VARYING.has(lastKey)) {
        i = j;
        continue;
      }
      const usage = lastKey === 'completion_tokens';
      if (usage && ++usageHoles > 1) return undefined;
      lits.push(Buffer.from(d.slice(litStart, i)));
      holes.push(usage ? USAGE : NUM);
      litStart = j;
      i = j;
      continue;
    }
    i++;
  }
  lits.push(Buffer.from(d.slice(litStart)));
  return holes.some((k) => k >= CONTENT) ? { lits, holes } : undefined;
}

function sameTemplate(a: Template, b: Template): boolean {
  if (a.holes.length !== b.holes.length) return false;
  for (let i = 0; i < a.holes.length; i++) if (a.holes[i] !== b.holes[i]) return false;
  for (let i = 0; i < a.lits.length; i++) if (!a.lits[i]!.equals(b.lits[i]!)) return false;
  return true;
}

const isNumberChar = (c: number) =>
  (c >= 48 && c <= 57) || c === 46 || c === 45 || c === 43 || c === 101 || c === 69;

// End of a JSON number starting at `pos` (at least one byte), or -1.
function numberEnd(line: Buffer, pos: number, end: number): number {
  let i = pos;
  while (i < end && isNumberChar(line[i]!)) i++;
  return i > pos ? i : -1;
}

// A non-negative integer written in plain digits, else undefined.
function digits(line: Buffer, a: number, b: number): number | undefined {
  let n = 0;
  for (let i = a; i < b; i++) {
    const c = line[i]! - 48;
    if (c < 0 || c > 9) return undefined;
    n = n * 10 + c;
  }
  return n;
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

function decodeEscaped(line: Buffer, from: number, to: number): string | undefined {
  try {
    const v: unknown = JSON.parse(`"${line.toString('utf8', from, to)}"`);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}
