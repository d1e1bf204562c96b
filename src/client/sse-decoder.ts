// Lines -> SSE events (WHATWG EventSource rules, plus what engines.md asks): comment lines (':') are
// ignored (llama.cpp pings, TGI keep-alives); multi-line `data:` is joined with '\n'; `event:` sets the
// type (`event: error`); values are trimmed at the end because TensorRT-LLM writes `data: {...} \n\n`;
// a whitespace-only line ends an event like an empty one.
const COLON = 58;
const SPACE = 32;

export type SseHandler = (type: string, data: string) => void;

export class SseDecoder {
  private type = '';
  private data: string | undefined;
  private more: string[] | undefined;

  constructor(private readonly onEvent: SseHandler) {}

  line(line: Buffer): void {
    const n = line.length;
    if (n === 0) return this.dispatch();
    const c0 = line[0]!;
    if (c0 === COLON) return;
    // Fast check for "data:" without decoding the whole line first.
    if (c0 === 100 && n >= 5 && line[1] === 97 && line[2] === 116 && line[3] === 97 && line[4] === COLON) {
      const start = n > 5 && line[5] === SPACE ? 6 : 5;
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

  private addData(value: string): void {
    if (this.data === undefined) this.data = value;
    else (this.more ??= []).push(value);
  }

  private dispatch(): void {
    const first = this.data;
    const type = this.type;
    this.type = '';
    if (first === undefined) return;
    const data = this.more === undefined ? first : [first, ...this.more].join('\n');
    this.data = undefined;
    this.more = undefined;
    this.onEvent(type === '' ? 'message' : type, data);
  }
}
