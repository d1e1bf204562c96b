// Small non-streaming helpers for discovery (target/, prompts/): typed failures, a timeout, and messages
// that never carry the API key.
import { request } from 'undici';
import { redactSecrets, registerSecret } from '../secrets.js';
import { defaultDispatcher } from './stream.js';
import { errorOf } from './full-chunk.js';

export interface HttpOptions {
  apiKey?: string;
  timeoutMs?: number; // whole exchange, default 10 s
  headers?: Record<string, string>;
}

export interface HttpOk<T> {
  ok: true;
  status: number;
  headers: Record<string, string>;
  body: T;
}

export interface HttpFailure {
  ok: false;
  kind: 'connect' | 'timeout' | 'http_status' | 'bad_json';
  status?: number;
  message: string; // one line, redacted
  headers?: Record<string, string>;
  body?: unknown; // parsed JSON error body when there was one
  text?: string; // raw body (first 64 KB) for http_status / bad_json
}

export type HttpResult<T> = HttpOk<T> | HttpFailure;

const MAX_TEXT = 64 * 1024;

/** `path` is appended to `baseUrl` (so '/metrics' on the server root needs the root URL); an absolute URL is used as is. */
export function joinUrl(baseUrl: string, path: string): string {
  if (/^https?:\/\//i.test(path)) return path;
  return baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}

export async function getText(
  baseUrl: string,
  path: string,
  opts: HttpOptions = {},
): Promise<HttpResult<string>> {
  return exchange('GET', joinUrl(baseUrl, path), undefined, opts, false) as Promise<HttpResult<string>>;
}

export async function getJson<T = unknown>(
  baseUrl: string,
  path: string,
  opts: HttpOptions = {},
): Promise<HttpResult<T>> {
  return exchange('GET', joinUrl(baseUrl, path), undefined, opts, true) as Promise<HttpResult<T>>;
}

export async function postJson<T = unknown>(
  baseUrl: string,
  path: string,
  body: unknown,
  opts: HttpOptions = {},
): Promise<HttpResult<T>> {
  return exchange('POST', joinUrl(baseUrl, path), JSON.stringify(body), opts, true) as Promise<HttpResult<T>>;
}

async function exchange(
  method: 'GET' | 'POST',
  url: string,
  payload: string | undefined,
  opts: HttpOptions,
  json: boolean,
): Promise<HttpResult<unknown>> {
  registerSecret(opts.apiKey);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const headers: Record<string, string> = { accept: json ? 'application/json' : '*/*', ...opts.headers };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  try {
    const res = await request(url, {
      method,
      headers,
      body: payload,
      signal: ac.signal,
      dispatcher: defaultDispatcher(Math.min(timeoutMs, 10_000)),
    });
    // A server may echo the key (in an error, a config dump): scrub before anything is kept.
    const text = redactSecrets(await res.body.text());
    const h = flatHeaders(res.headers);
    const status = res.statusCode;
    if (status < 200 || status >= 300) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const detail = errorOf(parsed)?.message ?? text.trim().slice(0, 300);
      return {
        ok: false,
        kind: 'http_status',
        status,
        message: redactSecrets(`HTTP ${status} from ${method} ${safeUrl(url)}${detail ? `: ${detail}` : ''}`),
        headers: h,
        body: parsed,
        text: text.slice(0, MAX_TEXT),
      };
    }
    if (!json) return { ok: true, status, headers: h, body: text };
    try {
      return { ok: true, status, headers: h, body: JSON.parse(text) as unknown };
    } catch {
      return {
        ok: false,
        kind: 'bad_json',
        status,
        message: `${method} ${safeUrl(url)} did not return JSON`,
        headers: h,
        text: text.slice(0, MAX_TEXT),
      };
    }
  } catch (err) {
    if (ac.signal.aborted) {
      return {
        ok: false,
        kind: 'timeout',
        message: `${method} ${safeUrl(url)} timed out after ${timeoutMs} ms`,
      };
    }
    const code = (err as { code?: string }).code;
    const kind = code === 'UND_ERR_CONNECT_TIMEOUT' ? 'timeout' : 'connect';
    const what = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      kind,
      message: redactSecrets(`${method} ${safeUrl(url)} failed: ${code ?? ''} ${what}`.replace(/ +/g, ' ')),
    };
  } finally {
    clearTimeout(timer);
  }
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
