// The one non-streaming HTTP helper (probe, metrics scrapes, tokenize, prompt calibration). Every outcome is
// a value: a 2xx answer, or a failure with its kind (src/failures/kinds.ts); a non-2xx answer is a failure of
// kind http_status that keeps the status, the body and the engine's error (type, code, classified reason).
// One deadline for the whole exchange. Messages and bodies never carry the API key. A request that got no
// byte on a reused connection the server had given up is sent once more on a new one, as streamed requests
// are (origin-policy.ts, h1-request.ts): metrics scrapes and probes meet llama.cpp's closes too.
import { Client, type Dispatcher } from 'undici';
import { redactSecrets, registerSecret } from '../secrets.js';
import { classifyError } from '../failures/classify.js';
import { parseErrorBody, tryJson, type ErrorBody } from '../failures/error-body.js';
import type { FailureReason, HttpFailureKind } from '../failures/kinds.js';
import { defaultDispatcher } from './transport/undici-request.js';
import { originKey, OriginPolicies } from './transport/origin-policy.js';

const originPolicies = new OriginPolicies(); // what probes and scrapes learned
import { socketTag, trackedConnector } from './transport/undici-sockets.js';
import { checkOptions, keysOf } from '../option-keys.js';

export interface HttpOptions {
  apiKey?: string;
  timeoutMs?: number; // whole exchange, default DEFAULT_HTTP_TIMEOUT_MS
  headers?: Record<string, string>;
  maxBytes?: number; // body read cap, default 8 MiB: a huge page is not an API answer
}

export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
const MAX_TEXT_KEPT = 64 * 1024; // of a failure's body

export interface HttpOk<T = unknown> {
  ok: true;
  status: number;
  headers: Record<string, string>;
  contentType: string;
  text: string;
  body: T; // getJson/postJson: the parsed JSON; getText: the text; httpGet/httpPost: JSON or undefined
}

export interface HttpFailure {
  ok: false;
  kind: HttpFailureKind;
  message: string; // one line, redacted
  status?: number;
  code?: string; // transport error code (ECONNREFUSED, ENOTFOUND, UND_ERR_...)
  headers?: Record<string, string>;
  contentType?: string;
  text?: string; // raw body (first 64 KB) for http_status / bad_json
  body?: unknown; // parsed JSON body when there was one
  error?: ErrorBody & { reason: FailureReason }; // the engine's error, for http_status
}

export type HttpResult<T = unknown> = HttpOk<T> | HttpFailure;

type Mode = 'json' | 'text' | 'any';

/** `path` is appended to `baseUrl` (so '/metrics' on the server root needs the root URL); an absolute URL is used as is. */
export function joinUrl(baseUrl: string, path: string): string {
  if (/^https?:\/\//i.test(path)) return path;
  return baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}

const KEYS = keysOf<HttpOptions>({ apiKey: true, timeoutMs: true, headers: true, maxBytes: true });

export function getText(baseUrl: string, path: string, opts: HttpOptions = {}): Promise<HttpResult<string>> {
  checkOptions('getText', opts, KEYS);
  return exchange('GET', joinUrl(baseUrl, path), undefined, opts, 'text') as Promise<HttpResult<string>>;
}

export function getJson<T = unknown>(
  baseUrl: string,
  path: string,
  opts: HttpOptions = {},
): Promise<HttpResult<T>> {
  checkOptions('getJson', opts, KEYS);
  return exchange('GET', joinUrl(baseUrl, path), undefined, opts, 'json') as Promise<HttpResult<T>>;
}

export function postJson<T = unknown>(
  baseUrl: string,
  path: string,
  body: unknown,
  opts: HttpOptions = {},
): Promise<HttpResult<T>> {
  checkOptions('postJson', opts, KEYS);
  return exchange('POST', joinUrl(baseUrl, path), JSON.stringify(body), opts, 'json') as Promise<
    HttpResult<T>
  >;
}

/** Any content (Prometheus text, JSON, a page): `body` is the JSON when the text is JSON, else undefined. */
export function httpGet(url: string, opts: HttpOptions = {}): Promise<HttpResult> {
  return exchange('GET', url, undefined, opts, 'any');
}

export function httpPost(url: string, body: unknown, opts: HttpOptions = {}): Promise<HttpResult> {
  return exchange('POST', url, JSON.stringify(body), opts, 'any');
}

async function exchange(
  method: 'GET' | 'POST',
  url: string,
  payload: string | undefined,
  opts: HttpOptions,
  mode: Mode,
): Promise<HttpResult> {
  registerSecret(opts.apiKey);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const headers: Record<string, string> = {
    accept: mode === 'json' ? 'application/json' : 'application/json, text/plain, */*',
    ...opts.headers,
  };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  const where = `${method} ${safeUrl(url)}`;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  const connectMs = Math.min(timeoutMs, DEFAULT_HTTP_TIMEOUT_MS);
  const t = target(url);
  const policy = originPolicies.get(t.key);
  const send = (d: Dispatcher, reset: boolean) =>
    d.request({ origin: t.origin, path: t.path, method, headers, body: payload, signal: ac.signal, reset });
  let oneShot: Client | undefined;
  // A connection of its own: for a re-send, and for every request to an origin that closes right after a
  // response (the pool's idle sockets to it are about to be closed).
  const ownConnection = () => (oneShot = new Client(t.origin, { connect: trackedConnector(connectMs) }));
  try {
    let res: Dispatcher.ResponseData;
    try {
      res = policy.reuse
        ? await send(defaultDispatcher(connectMs), false)
        : await send(ownConnection(), true);
    } catch (err) {
      const tag = socketTag(err);
      if (!tag?.reused || tag.answered || ac.signal.aborted || oneShot) throw err;
      policy.noteUnannouncedClose(tag.sinceLastReadMs);
      res = await send(ownConnection(), true);
    }
    // A server may echo the key (in an error, a config dump): scrub before anything is kept.
    const text = redactSecrets(await readCapped(res.body, opts.maxBytes ?? DEFAULT_MAX_BYTES));
    const h = flatHeaders(res.headers);
    const status = res.statusCode;
    const contentType = h['content-type'] ?? '';
    if (status < 200 || status >= 300) return httpStatus(where, status, h, contentType, text);
    if (mode === 'text') return { ok: true, status, headers: h, contentType, text, body: text };
    const body = tryJson(text);
    if (mode === 'any') return { ok: true, status, headers: h, contentType, text, body };
    if (body === undefined) {
      return {
        ok: false,
        kind: 'bad_json',
        status,
        message: `${where} did not return JSON`,
        headers: h,
        contentType,
        text: text.slice(0, MAX_TEXT_KEPT),
      };
    }
    return { ok: true, status, headers: h, contentType, text, body };
  } catch (err) {
    return transportFailure(where, err, ac.signal.aborted, timeoutMs);
  } finally {
    clearTimeout(timer);
    if (oneShot) void oneShot.destroy().catch(() => undefined);
  }
}

function httpStatus(
  where: string,
  status: number,
  headers: Record<string, string>,
  contentType: string,
  text: string,
): HttpFailure {
  const e = parseErrorBody(text);
  const body = tryJson(text);
  const detail = e.message === '(empty body)' ? '' : `: ${e.message.slice(0, 300)}`;
  return {
    ok: false,
    kind: 'http_status',
    status,
    message: redactSecrets(`HTTP ${status} from ${where}${detail}`),
    headers,
    contentType,
    text: text.slice(0, MAX_TEXT_KEPT),
    ...(body !== undefined ? { body } : {}),
    error: { ...e, reason: classifyError(status, e) },
  };
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

function transportFailure(where: string, err: unknown, aborted: boolean, timeoutMs: number): HttpFailure {
  if (aborted) return { ok: false, kind: 'timeout', message: `${where} timed out after ${timeoutMs} ms` };
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code;
  const what = err instanceof Error ? err.message : String(err);
  const message = redactSecrets(`${where} failed: ${code ?? ''} ${what}`.replace(/ +/g, ' '));
  const kind = code !== undefined && TIMEOUT_CODES.has(code) ? 'timeout' : 'connect';
  return { ok: false, kind, message, ...(code !== undefined ? { code } : {}) };
}

async function readCapped(body: AsyncIterable<Buffer | Uint8Array>, maxBytes: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = Buffer.from(chunk);
    if (size + buf.length > maxBytes) {
      parts.push(buf.subarray(0, maxBytes - size)); // keep what fits; the rest is not an API answer
      break;
    }
    size += buf.length;
    parts.push(buf);
  }
  return Buffer.concat(parts).toString('utf8');
}

function target(url: string): { origin: string; path: string; key: string } {
  const u = new URL(url);
  return { origin: u.origin, path: `${u.pathname}${u.search}`, key: originKey(u) };
}

// Never echo credentials embedded in a URL.
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.toString();
  } catch {
    return '<invalid url>';
  }
}

function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
