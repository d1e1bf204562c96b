// One response's decoding state, independent of the HTTP stack: the transport hands it each network read
// with the time it arrived, so tests can feed transcripts byte by byte and the benchmark can compare stacks.
import { redactSecrets } from '../../secrets.js';
import type { ErrorKind, RequestError, RequestRecord } from '../types.js';
import { TemplateCache } from './chunk-template.js';
import { gapSummary } from './gaps.js';
import { fullChunk, type FullChunk } from './full-chunk.js';
import { classifyError } from '../../failures/classify.js';
import { errorOf, parseErrorBody, type ErrorBody } from '../../failures/error-body.js';
import { LineDecoder } from './line-decoder.js';
import { SseDecoder } from './sse-decoder.js';
import { TokenLedger, type TokenSource } from './token-ledger.js';
import { checkOptions, keysOf } from '../../option-keys.js';

export interface SessionOptions {
  keepText?: boolean;
  keepChunkTexts?: boolean; // each chunk's text in the record, to pin estimated counts after the cell
  fastPath?: boolean; // default true (chunk templates); false = JSON.parse every event (benchmarks, tests)
  tokenize?: (text: string) => Promise<number | undefined>;
  charsPerTokenEstimate?: number; // last resort when neither usage nor tokenize gives a count
}

export const SESSION_KEYS = keysOf<SessionOptions>({
  keepText: true,
  keepChunkTexts: true,
  fastPath: true,
  tokenize: true,
  charsPerTokenEstimate: true,
});

/** The session's own options out of a request's (streamRequest takes both in one object). */
export const sessionOptionsOf = (o: SessionOptions): SessionOptions =>
  Object.fromEntries(SESSION_KEYS.filter((k) => k in o).map((k) => [k, o[k as keyof SessionOptions]]));

const MAX_ERROR_BODY_BYTES = 64 * 1024;
const MAX_JSON_BODY_BYTES = 64 * 1024 * 1024;
const DEFAULT_CHARS_PER_TOKEN = 4;

export class StreamSession {
  headersAtMs: number | undefined;
  firstTokenAtMs: number | undefined;
  lastTokenAtMs: number | undefined;
  status: number | undefined;
  error: RequestError | undefined;
  /** Set once the response can no longer change the record: the transport should stop reading. */
  stopped = false;
  /** Events read by the full JSON parse and by a chunk template (the fast path). */
  readonly parses = { full: 0, fast: 0 };
  private mode: 'sse' | 'json' | 'error-body' = 'sse';
  private body: Buffer[] = [];
  private bodyBytes = 0;
  private t = 0;
  private doneSeen = false;
  private finishReason: string | undefined;
  private promptTokens: number | undefined;
  private cachedTokens: number | undefined;
  private cacheN: number | undefined;
  private usageReasoning: number | undefined;
  private predicted: number | undefined;
  private readonly ledger: TokenLedger;
  private readonly lines: LineDecoder;
  private readonly sse: SseDecoder;
  private readonly templates: TemplateCache | undefined;

  constructor(private readonly opts: SessionOptions = {}) {
    checkOptions('StreamSession', opts, SESSION_KEYS);
    this.templates = opts.fastPath === false ? undefined : new TemplateCache();
    this.ledger = new TokenLedger(
      opts.keepText === true || opts.keepChunkTexts === true || opts.tokenize !== undefined,
    );
    this.sse = new SseDecoder(
      (type, data) => this.event(type, data),
      this.templates ? (type, line, start, end) => this.rawEvent(type, line, start, end) : undefined,
      (n) => this.fail('line_too_long', `stream event exceeds the decoder cap (${n} chars without an end)`),
    );
    this.lines = new LineDecoder((line) => this.sse.line(line), {
      onOverflow: (n) =>
        this.fail('line_too_long', `stream line exceeds the decoder cap (${n} bytes without an end)`),
    });
  }

  headers(status: number, contentType: string | undefined, t: number): void {
    this.headersAtMs = t;
    this.status = status;
    if (status < 200 || status >= 300) this.mode = 'error-body';
    else if (contentType !== undefined && contentType.includes('application/json')) this.mode = 'json';
  }

  /** Body bytes buf[start, end) that arrived at t (the transport's one stamp per network read). */
  data(buf: Buffer, t: number, start = 0, end = buf.length): void {
    if (this.stopped) return;
    this.t = t;
    if (this.mode === 'sse') {
      this.lines.push(buf, start, end);
      this.sse.settle();
      return;
    }
    const cap = this.mode === 'error-body' ? MAX_ERROR_BODY_BYTES : MAX_JSON_BODY_BYTES;
    if (this.bodyBytes < cap) {
      const take = Math.min(end - start, cap - this.bodyBytes);
      this.body.push(Buffer.from(buf.subarray(start, start + take)));
      this.bodyBytes += take;
    }
  }

  /** The response ended normally (EOF). */
  end(t: number): void {
    if (this.stopped) return;
    this.t = t;
    if (this.mode === 'sse') {
      this.lines.end();
      this.sse.end();
      if (!this.stopped && !this.doneSeen && this.finishReason === undefined) {
        this.fail('stream_truncated', 'stream ended without [DONE] or a finish reason');
      }
    } else if (this.mode === 'error-body') {
      const status = this.status ?? 0;
      const e = parseErrorBody(Buffer.concat(this.body).toString('utf8'));
      const detail = e.message === '(empty body)' ? '' : `: ${e.message.slice(0, 500)}`;
      this.failWith('http_status', `HTTP ${status}${detail}`, e, status);
    } else {
      this.jsonBody();
    }
    this.stopped = true;
  }

  fail(kind: ErrorKind, message: string, status?: number): void {
    if (this.error) return;
    this.error = { kind, message: redactSecrets(message), ...(status !== undefined ? { status } : {}) };
    this.stopped = true;
  }

  // The engine said why: keep its fields and classify once (`status` is the response's, if any).
  private failWith(kind: ErrorKind, message: string, e: ErrorBody, status?: number): void {
    if (this.error) return;
    this.fail(kind, message, status ?? e.status);
    const err = this.error!;
    if (e.type !== undefined) err.type = e.type;
    if (e.code !== undefined) err.code = e.code;
    err.reason = classifyError(status, e);
  }

  async record(sentAtMs: number, endAtMs: number, calledAtMs = sentAtMs): Promise<RequestRecord> {
    const ledger = this.ledger;
    if (!ledger.sawUsage && this.predicted !== undefined && ledger.uncoveredChunks > 0)
      ledger.usage(this.predicted);
    let fallback: TokenSource | undefined;
    if (ledger.uncoveredChunks > 0) {
      const text = ledger.uncoveredText();
      const counted =
        this.opts.tokenize && text !== undefined ? await safeTokenize(this.opts.tokenize, text) : undefined;
      if (counted !== undefined) {
        ledger.closeWith(counted);
        fallback = 'tokenize';
      } else {
        const cpt = this.opts.charsPerTokenEstimate ?? DEFAULT_CHARS_PER_TOKEN;
        // A token-bearing chunk holds at least one token: a floor from facts, not a one-per-chunk guess.
        ledger.closeWith(Math.max(ledger.uncoveredChunks, Math.round(ledger.uncoveredChars() / cpt)));
        fallback = 'estimate';
      }
    }
    const rec: RequestRecord = {
      calledAtMs,
      sentAtMs,
      endAtMs,
      chunks: ledger.chunks,
      outputTokens: ledger.total(),
      tokenCountSource: ledger.source(fallback),
      ok: this.error === undefined,
    };
    if (this.headersAtMs !== undefined) rec.headersAtMs = this.headersAtMs;
    if (this.firstTokenAtMs !== undefined) rec.firstTokenAtMs = this.firstTokenAtMs;
    const reasoning = this.usageReasoning ?? ledger.reasoningTokens();
    if (reasoning > 0 || this.usageReasoning !== undefined) {
      rec.reasoningTokens = reasoning;
      rec.reasoningTokensSource = this.usageReasoning !== undefined ? 'usage' : 'chunks';
    }
    if (ledger.chunks.length > 0) {
      const a = ledger.attribution();
      rec.chunkAttribution = a.exact && fallback !== 'estimate' ? 'exact' : 'estimated';
      if (rec.chunkAttribution === 'estimated')
        rec.unpinnedTokens = fallback === 'estimate' ? rec.outputTokens : a.unpinnedTokens;
    }
    const gaps = gapSummary(ledger.chunks);
    if (gaps) {
      rec.maxGapMs = gaps.maxGapMs;
      rec.stalls = gaps.stalls;
    }
    if (this.opts.keepChunkTexts) rec.chunkTexts = [...(ledger.chunkTexts() ?? [])];
    if (this.promptTokens !== undefined) rec.promptTokens = this.promptTokens;
    const cached = this.cachedTokens ?? this.cacheN;
    if (cached !== undefined) rec.cachedTokens = cached;
    if (this.finishReason !== undefined) rec.finishReason = this.finishReason;
    if (this.error) rec.error = this.error;
    if (this.opts.keepText) rec.text = ledger.text() ?? '';
    return rec;
  }

  private event(type: string, data: string): void {
    if (this.stopped) return;
    if (type === 'error') {
      const e = parseError(data);
      this.failWith('stream_error_event', e.message, e);
      return;
    }
    if (data === '[DONE]') {
      this.doneSeen = true;
      return;
    }
    const templates = this.templates;
    this.parses.full++;
    let o: unknown;
    try {
      o = JSON.parse(data);
    } catch {
      this.fail('bad_json', `invalid JSON in stream event: ${data.slice(0, 200)}`);
      return;
    }
    const c = this.apply(o);
    if (templates && c) templates.learn(data, o, c);
  }

  // Hot path: a single-line event that matches a learned template is a plain token event.
  private rawEvent(type: string, line: Buffer, start: number, end: number): boolean {
    if (this.stopped || type !== 'message') return this.stopped;
    const hit = this.templates!.match(line, start, end);
    if (hit === undefined) return false;
    this.parses.fast++;
    if (hit.text !== '') this.text(hit.text, hit.reasoningChars); // "" = a special token: not token-bearing
    if (hit.completionTokens !== undefined) this.ledger.usage(hit.completionTokens);
    return true;
  }

  private apply(o: unknown): FullChunk | undefined {
    const c = fullChunk(o);
    if (c.error) {
      this.failWith('stream_error_event', c.error.message, c.error);
      return undefined;
    }
    if (c.text !== '') this.text(c.text, c.reasoningChars);
    if (c.finishReason !== undefined) {
      this.finishReason = c.finishReason;
      // vLLM reports engine failures and server-side aborts as finish reasons.
      if (c.finishReason === 'error' || c.finishReason === 'abort') {
        this.fail('stream_error_event', `server ended the request with finish_reason "${c.finishReason}"`);
      }
    }
    const u = c.usage;
    if (u) {
      if (u.completionTokens !== undefined) this.ledger.usage(u.completionTokens);
      if (u.promptTokens !== undefined) this.promptTokens = u.promptTokens;
      if (u.cachedTokens !== undefined) this.cachedTokens = u.cachedTokens;
      if (u.reasoningTokens !== undefined) this.usageReasoning = u.reasoningTokens;
    }
    if (c.predictedTokens !== undefined) this.predicted = c.predictedTokens;
    if (c.cacheN !== undefined) this.cacheN = c.cacheN;
    return c;
  }

  private text(text: string, reasoningChars: number): void {
    const t = this.t;
    if (this.firstTokenAtMs === undefined) this.firstTokenAtMs = t;
    this.lastTokenAtMs = t;
    this.ledger.add(t, text, reasoningChars);
  }

  // A server that ignored `stream: true` and answered with one JSON document.
  private jsonBody(): void {
    let o: unknown;
    try {
      o = JSON.parse(Buffer.concat(this.body).toString('utf8'));
    } catch {
      this.fail('bad_json', 'response body is not valid JSON');
      return;
    }
    this.apply(o);
  }
}

async function safeTokenize(fn: (text: string) => Promise<number | undefined>, text: string) {
  try {
    const n = await fn(text);
    return n !== undefined && Number.isFinite(n) && n >= 0 ? Math.round(n) : undefined;
  } catch {
    return undefined;
  }
}

function parseError(data: string): ErrorBody {
  try {
    const e = errorOf(JSON.parse(data));
    if (e) return e;
  } catch {
    // not JSON: the text is the message
  }
  return { message: data.slice(0, 500) || 'error event' };
}
