// Lines -> SSE events (WHATWG EventSource rules, plus what docs/engines.md asks): comment lines (':') are
// ignored (llama.cpp pings, TGI keep-alives); multi-line `data:` is joined with '\n'; `event:` sets the
// type (`event: error`); values are trimmed at the end because TensorRT-LLM writes `data: {...} \n\n`;
// a whitespace-only line ends an event like an empty one.
const COLON = 58;
const SPACE = 32;

export type SseHandler = (type: string, data: string) => void;
/** Sees a single-line event's raw bytes first; returns true when it consumed the event. */
export type SseRawHandler = (type: string, line: Buffer, start: number, end: number) => boolean;

// An event whose blank line never comes (endless `data:` lines) must not grow memory without bound: past the
// cap its data is dropped up to the event's end and reported once.
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

export class SseDecoder {
  private type = '';
  private data: string | undefined;
  private more: string[] | undefined;
  private chars = 0;
  private discarding = false;
  // First data line of the current event, kept as bytes until we know the event has only that line.
  private raw: Buffer | undefined;
  private rawStart = 0;

  constructor(
    private readonly onEvent: SseHandler,
    private readonly onRaw?: SseRawHandler,
    private readonly onOverflow?: (chars: number) => void,
    private readonly maxEventChars = MAX_EVENT_CHARS,
  ) {}

  /** Call after each network read: a pending raw line must not outlive the read's buffer. */
  settle(): void {
    if (this.raw !== undefined) this.materialize();
  }

  line(line: Buffer): void {
    const n = line.length;
    if (n === 0) return this.dispatch();
    const c0 = line[0]!;
    if (c0 === COLON) return;
    // Fast check for "data:" without decoding the whole line first.
    if (c0 === 100 && n >= 5 && line[1] === 97 && line[2] === 116 && line[3] === 97 && line[4] === COLON) {
      const start = n > 5 && line[5] === SPACE ? 6 : 5;
      if (this.onRaw !== undefined && this.data === undefined && this.raw === undefined) {
        this.raw = line;
        this.rawStart = start;
        return;
      }
      this.addData(line.toString('utf8', start, n).trimEnd());
      return;
    }
    const text = line.toString('utf8');
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    if (field.trim() === '') {
      if (colon === -1) this.dispatch();
      return;
    }
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.charCodeAt(0) === SPACE) value = value.slice(1);
    value = value.trimEnd();
    if (field === 'data') this.addData(value);
    else if (field === 'event') this.type = value;
    // id, retry and unknown fields carry nothing a benchmark needs.
  }

  /** End of stream: an event whose blank line never came is still delivered (llama.cpp closes after errors). */
  end(): void {
    this.dispatch();
  }

  private materialize(): void {
    const raw = this.raw!;
    this.raw = undefined;
    this.data = raw.toString('utf8', this.rawStart, raw.length).trimEnd();
  }

  private addData(value: string): void {
    if (this.raw !== undefined) this.materialize();
    if (this.discarding) return;
    this.chars += value.length + 1;
    if (this.chars > this.maxEventChars) {
      this.discarding = true;
      this.data = '';
      this.more = undefined;
      this.onOverflow?.(this.chars);
      return;
    }
    if (this.data === undefined) this.data = value;
    else (this.more ??= []).push(value);
  }

  private dispatch(): void {
    const type = this.type;
    if (this.raw !== undefined) {
      const raw = this.raw;
      this.raw = undefined;
      this.type = '';
      let end = raw.length;
      while (end > this.rawStart && (raw[end - 1] === SPACE || raw[end - 1] === 9)) end--;
      if (this.onRaw!(type === '' ? 'message' : type, raw, this.rawStart, end)) return;
      this.onEvent(type === '' ? 'message' : type, raw.toString('utf8', this.rawStart, raw.length).trimEnd());
      return;
    }
    const first = this.data;
    this.type = '';
    this.chars = 0;
    if (this.discarding) {
      this.discarding = false;
      this.data = undefined;
      return;
    }
    if (first === undefined) return;
    const data = this.more === undefined ? first : [first, ...this.more].join('\n');
    this.data = undefined;
    this.more = undefined;
    this.onEvent(type === '' ? 'message' : type, data);
  }
}
