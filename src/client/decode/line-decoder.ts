// Bytes -> lines. Splits on CR, LF and CRLF (also when CR and LF land in different reads), never on bytes
// inside a UTF-8 sequence (0x0A/0x0D cannot occur there), so a line decodes identically however the
// network split it. Partial lines are kept as a list of copies and joined once: no quadratic growth on
// lines of megabytes (vllm#39963: a 64 KB read buffer broke a peer at long contexts).
const LF = 10;
const CR = 13;
// A server that never ends a line must not grow memory without bound: past the cap the line is dropped and
// reported once (the session fails the request with error kind line_too_long). No engine chunk comes near it.
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

// A match past `end` (the chunk framing after an in-place chunk) is no match.
const within = (i: number, end: number): number => (i < end ? i : -1);

export class LineDecoder {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private skipLF = false;
  private discarding = false; // inside an over-long line: drop bytes up to its end

  constructor(
    private readonly onLine: (line: Buffer) => void,
    private readonly limit: { maxLineBytes?: number; onOverflow?: (bytes: number) => void } = {},
  ) {}

  /** Decodes buf[start, end): a transport hands in a chunk's bytes in place, without a view per read. */
  push(buf: Buffer, start = 0, end = buf.length): void {
    const n = end;
    if (n <= start) return;
    let pos = start;
    if (this.skipLF) {
      this.skipLF = false;
      if (buf[pos] === LF) pos++;
    }
    let cr = within(buf.indexOf(CR, pos), n);
    while (pos < n) {
      const lf = within(buf.indexOf(LF, pos), n);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 < n) {
          next = buf[cr + 1] === LF ? cr + 2 : cr + 1;
        } else {
          next = n;
          this.skipLF = true; // a CRLF may be split across reads
        }
        cr = within(buf.indexOf(CR, next), n);
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else {
        this.stash(buf.subarray(pos, n));
        return;
      }
      if (this.discarding) {
        this.discarding = false;
        this.parts = [];
        this.partBytes = 0;
      } else this.emit(buf.subarray(pos, end));
      pos = next;
    }
  }

  /** End of stream: a last line without terminator is still a line. */
  end(): void {
    if (!this.discarding && (this.partBytes > 0 || this.parts.length > 0)) this.emit(Buffer.alloc(0));
    this.discarding = false;
    this.skipLF = false;
  }

  /** Bytes held in an unfinished line (memory bound checks, tests). */
  get pendingBytes(): number {
    return this.partBytes;
  }

  private stash(rest: Buffer): void {
    if (this.discarding) return;
    const max = this.limit.maxLineBytes ?? MAX_LINE_BYTES;
    if (this.partBytes + rest.length > max) {
      const bytes = this.partBytes + rest.length;
      this.parts = [];
      this.partBytes = 0;
      this.discarding = true;
      this.limit.onOverflow?.(bytes);
      return;
    }
    // Copy: the caller's buffer may be reused once we return.
    this.parts.push(Buffer.from(rest));
    this.partBytes += rest.length;
  }

  private emit(tail: Buffer): void {
    if (this.parts.length === 0) {
      this.onLine(tail);
      return;
    }
    if (tail.length > 0) this.parts.push(tail);
    const line =
      this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.partBytes + tail.length);
    this.parts = [];
    this.partBytes = 0;
    this.onLine(line);
  }
}
