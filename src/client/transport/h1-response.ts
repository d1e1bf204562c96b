// One HTTP/1.1 response, incrementally, from bytes: status line, headers, then a body framed by chunked
// transfer-encoding, a content-length or the connection's close (RFC 9112 §6.3). Pure: no sockets, no
// clocks. Body bytes are handed on in place (buffer, start, end): chunk framing is decoded where it lies,
// so a read costs no copy and no view (the streaming path's per-read budget, docs/performance.md).
const LF = 10;
const CR = 13;
const MAX_HEAD_BYTES = 64 * 1024; // status line + headers (undici and node:http allow 16 KB)
const MAX_TRAILER_BYTES = 64 * 1024;
const MAX_CHUNK_LINE_BYTES = 4 * 1024; // a chunk's size line with its extensions
const MAX_CHUNK_SIZE_DIGITS = 12; // 2^48 bytes: any more is not a chunk a client should wait for

export interface H1Head {
  status: number;
  /** Lowercase names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  /** The connection may carry another request once this response has ended. */
  keepAlive: boolean;
  /** The server's `Keep-Alive: timeout=N`, in ms: how long it keeps an idle connection open. */
  keepAliveTimeoutMs?: number;
  /** The server's `Keep-Alive: max=N`: how many requests the connection may carry. */
  keepAliveMax?: number;
}

export interface H1Sink {
  onHead(head: H1Head): void;
  onBody(buf: Buffer, start: number, end: number): void;
}

// Parser states.
const HEAD = 0;
const LENGTH = 1; // content-length body
const UNTIL_CLOSE = 2; // no length: the body ends when the server closes
const SIZE = 3; // chunk size digits
const SIZE_EXT = 4; // chunk extensions up to the line's end
const SIZE_LF = 5; // the LF after the size line's CR
const DATA = 6;
const DATA_CR = 7; // the CRLF after a chunk's data
const DATA_LF = 8;
const TRAILERS = 9;
const DONE = 10;
const FAILED = 11;

export class H1ResponseParser {
  head: H1Head | undefined;
  /** Why the bytes are not an HTTP/1.1 response; parsing stopped there. */
  error: string | undefined;
  private state = HEAD;
  private remaining = 0; // bytes left of the content-length body or of the current chunk
  private digits = 0; // of the chunk size
  private lineBytes = 0; // of the chunk extensions, or of the trailer line in progress
  private trailerBytes = 0;
  private headParts: Buffer[] = [];
  private headBytes = 0;
  private headLine = 0; // bytes of the head line in progress (CR included)
  private headLineCR = false; // that line so far is a lone CR

  constructor(private readonly sink: H1Sink) {}

  /** The response has ended (its body is complete). */
  get complete(): boolean {
    return this.state === DONE;
  }

  /** Reads buf[start, end); returns where it stopped: `end`, or earlier at the response's end or an error. */
  push(buf: Buffer, start = 0, end = buf.length): number {
    let pos = start;
    while (pos < end) {
      switch (this.state) {
        case HEAD:
          pos = this.readHead(buf, pos, end);
          break;
        case LENGTH:
          pos = this.sized(buf, pos, end, DONE);
          break;
        case UNTIL_CLOSE:
          this.sink.onBody(buf, pos, end);
          return end;
        case DATA:
          pos = this.sized(buf, pos, end, DATA_CR);
          break;
        case DONE:
        case FAILED:
          return pos;
        default:
          pos = this.framing(buf, pos, end);
      }
    }
    return pos;
  }

  /**
   * The server closed the connection. True when that ends the response (a body delimited by the close, or
   * one already complete); false when the response was cut short or never came.
   */
  eof(): boolean {
    if (this.state === UNTIL_CLOSE) this.state = DONE;
    return this.state === DONE;
  }

  // The next `remaining` bytes are body (a content-length body, or one chunk's data); then `next`.
  private sized(buf: Buffer, pos: number, end: number, next: number): number {
    const stop = Math.min(end, pos + this.remaining);
    this.remaining -= stop - pos;
    this.sink.onBody(buf, pos, stop);
    if (this.remaining === 0) this.state = next;
    return stop;
  }

  private fail(message: string, pos: number): number {
    this.error = message;
    this.state = FAILED;
    return pos;
  }

  // Chunk framing, a byte at a time: a few bytes per chunk ("1f4\r\n" before, "\r\n" after).
  private framing(buf: Buffer, pos: number, end: number): number {
    for (; pos < end; pos++) {
      const c = buf[pos]!;
      switch (this.state) {
        case SIZE: {
          const v = hexValue(c);
          if (v >= 0) {
            if (++this.digits > MAX_CHUNK_SIZE_DIGITS) return this.fail('chunk size too large', pos);
            this.remaining = this.remaining * 16 + v;
            continue;
          }
          if (this.digits === 0) return this.fail('invalid chunk size', pos);
          if (c === CR) this.state = SIZE_LF;
          else if (c === LF) return this.chunkStart(pos + 1);
          else if (c === 59 || c === 32 || c === 9)
            this.state = SIZE_EXT; // ';' or whitespace
          else return this.fail('invalid chunk size', pos);
          continue;
        }
        case SIZE_EXT:
          if (c === LF) return this.chunkStart(pos + 1);
          if (++this.lineBytes > MAX_CHUNK_LINE_BYTES) return this.fail('chunk extension too long', pos);
          continue;
        case SIZE_LF:
          if (c !== LF) return this.fail('invalid chunk size line', pos);
          return this.chunkStart(pos + 1);
        case DATA_CR:
          if (c === CR) this.state = DATA_LF;
          else if (c === LF) this.nextChunk();
          else return this.fail('chunk data longer than its size', pos);
          continue;
        case DATA_LF:
          if (c !== LF) return this.fail('chunk data longer than its size', pos);
          this.nextChunk();
          continue;
        case TRAILERS:
          if (++this.trailerBytes > MAX_TRAILER_BYTES) return this.fail('trailers too long', pos);
          if (c === LF) {
            if (this.lineBytes === 0) {
              this.state = DONE;
              return pos + 1;
            }
            this.lineBytes = 0;
          } else if (c !== CR || this.lineBytes > 0) this.lineBytes++;
          continue;
        default:
          return pos; // SIZE's work is done: DATA, DONE or FAILED take over in push
      }
    }
    return pos;
  }

  private chunkStart(pos: number): number {
    this.lineBytes = 0;
    this.digits = 0;
    this.state = this.remaining === 0 ? TRAILERS : DATA;
    return pos;
  }

  private nextChunk(): void {
    this.state = SIZE;
    this.remaining = 0;
    this.digits = 0;
    this.lineBytes = 0;
  }

  // The head may span reads: its pieces are copied until the blank line arrives (a head is small and comes
  // once per response), each byte scanned once.
  private readHead(buf: Buffer, pos: number, end: number): number {
    if (this.headBytes === 0) {
      while (pos < end && (buf[pos] === CR || buf[pos] === LF)) pos++; // RFC 9112 §2.2: empty lines first
      if (pos === end) return end;
    }
    const stop = this.scanHead(buf, pos, end);
    const bytes = this.headBytes + (stop === -1 ? end : stop) - pos;
    if (bytes > MAX_HEAD_BYTES) return this.fail(`response head exceeds ${MAX_HEAD_BYTES} bytes`, end);
    if (stop === -1) {
      this.headParts.push(Buffer.from(buf.subarray(pos, end)));
      this.headBytes = bytes;
      return end;
    }
    const text =
      this.headParts.length === 0
        ? buf.toString('latin1', pos, stop)
        : Buffer.concat([...this.headParts, buf.subarray(pos, stop)]).toString('latin1');
    this.headParts = [];
    this.headBytes = 0;
    const problem = this.startBody(text);
    return problem === undefined ? stop : this.fail(problem, stop);
  }

  // The index just past the head's blank line, or -1 (the current line's length carried to the next read).
  private scanHead(buf: Buffer, pos: number, end: number): number {
    let i = pos;
    for (;;) {
      const lf = buf.indexOf(LF, i);
      if (lf === -1 || lf >= end) {
        const n = end - i;
        if (n > 0) {
          this.headLineCR = this.headLine === 0 && n === 1 && buf[i] === CR;
          this.headLine += n;
        }
        return -1;
      }
      const n = lf - i;
      const len = this.headLine + n;
      const blank = len === 0 || (len === 1 && (n === 1 ? buf[i] === CR : this.headLineCR));
      this.headLine = 0;
      this.headLineCR = false;
      if (blank) return lf + 1;
      i = lf + 1;
    }
  }

  private startBody(text: string): string | undefined {
    const parsed = parseHead(text);
    if (typeof parsed === 'string') return parsed;
    const { head, http10 } = parsed;
    const status = head.status;
    if (status === 101) return 'unexpected 101 Switching Protocols';
    if (status < 200) return undefined; // 100 Continue, 103 Early Hints: the real head follows
    const h = head.headers;
    const te = h['transfer-encoding'];
    const cl = h['content-length'];
    if (http10 && !tokens(h.connection).includes('keep-alive')) head.keepAlive = false;
    if (status === 204 || status === 304) {
      this.head = head;
      this.sink.onHead(head);
      this.state = DONE;
      return undefined;
    }
    if (te !== undefined) {
      // RFC 9112 §6.3: a message with both "ought to be handled as an error" (response splitting); llhttp,
      // which undici parses with, refuses it too (test/client/parser-leniency.test.ts).
      if (cl !== undefined) return 'both transfer-encoding and content-length';
      const codings = tokens(te);
      if (codings[codings.length - 1] === 'chunked') this.state = SIZE;
      else {
        head.keepAlive = false;
        this.state = UNTIL_CLOSE;
      }
    } else if (cl !== undefined) {
      const n = contentLength(cl);
      if (n === undefined) return `invalid content-length "${cl.slice(0, 40)}"`;
      this.remaining = n;
      this.state = n === 0 ? DONE : LENGTH;
    } else {
      head.keepAlive = false;
      this.state = UNTIL_CLOSE;
    }
    this.head = head;
    this.sink.onHead(head);
    return undefined;
  }
}

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function parseHead(text: string): { head: H1Head; http10: boolean } | string {
  const lines = text.split('\n');
  const first = stripCR(lines[0]!);
  const m = STATUS_LINE.exec(first);
  if (!m) return `invalid status line "${first.slice(0, 60)}"`;
  const headers: Record<string, string> = Object.create(null) as Record<string, string>; // '__proto__' is a name
  for (let i = 1; i < lines.length; i++) {
    const line = stripCR(lines[i]!);
    if (line === '') break;
    if (line[0] === ' ' || line[0] === '\t') return 'obsolete header line folding';
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : '';
    if (!TOKEN.test(name)) return `invalid header line "${line.slice(0, 60)}"`;
    const key = name.toLowerCase();
    const value = line.slice(colon + 1).trim();
    // Repeated fields join with ', ' (RFC 9110), except Content-Type: its first value, as undici reads it.
    if (headers[key] === undefined) headers[key] = value;
    else if (key !== 'content-type') headers[key] = `${headers[key]}, ${value}`;
  }
  const head: H1Head = {
    status: Number(m[2]),
    headers,
    keepAlive: !tokens(headers.connection).includes('close'),
  };
  const ka = headers['keep-alive'] ?? '';
  const timeout = /(?:^|[,;\s])timeout\s*=\s*(\d+)/i.exec(ka);
  if (timeout) head.keepAliveTimeoutMs = Number(timeout[1]) * 1000;
  const max = /(?:^|[,;\s])max\s*=\s*(\d+)/i.exec(ka);
  if (max) head.keepAliveMax = Number(max[1]);
  return { head, http10: m[1] === '0' };
}

const stripCR = (s: string): string => (s.endsWith('\r') ? s.slice(0, -1) : s);

function tokens(v: string | undefined): string[] {
  if (v === undefined) return [];
  return v
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '');
}

// "12" or repeated equal values ("12, 12"); anything else is a framing error (RFC 9110 §8.6).
function contentLength(v: string): number | undefined {
  const parts = v.split(',').map((p) => p.trim());
  if (!parts.every((p) => /^\d{1,15}$/.test(p) && p === parts[0])) return undefined;
  return Number(parts[0]);
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}
