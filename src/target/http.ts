import { request } from 'undici';

// Non-generating HTTP calls the probe and the metrics sampler make. Failures are values, not exceptions,
// so the probe can decide which one is fatal (connection refused vs. an endpoint this engine lacks).
export type HttpFailure = 'connect' | 'dns' | 'timeout' | 'other';

export type HttpResult =
  | { ok: true; status: number; contentType: string; text: string; json: unknown }
  | { ok: false; failure: HttpFailure; message: string };

export interface HttpOptions {
  apiKey?: string;
  timeoutMs?: number;
  maxBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

export function httpGet(url: string, opts: HttpOptions = {}): Promise<HttpResult> {
  return send('GET', url, undefined, opts);
}

export function httpPost(url: string, body: unknown, opts: HttpOptions = {}): Promise<HttpResult> {
  return send('POST', url, JSON.stringify(body), opts);
}

async function send(
  method: 'GET' | 'POST',
  url: string,
  body: string | undefined,
  opts: HttpOptions,
): Promise<HttpResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const headers: Record<string, string> = { accept: 'application/json, text/plain, */*' };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await request(url, {
      method,
      headers,
      body,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await readCapped(res.body, opts.maxBytes ?? DEFAULT_MAX_BYTES);
    const ct = res.headers['content-type'];
    const contentType = (Array.isArray(ct) ? ct[0] : ct) ?? '';
    return { ok: true, status: res.statusCode, contentType, text, json: tryJson(text) };
  } catch (e) {
    return { ok: false, ...classify(e) };
  }
}

async function readCapped(body: AsyncIterable<Buffer | Uint8Array>, maxBytes: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = Buffer.from(chunk);
    size += buf.length;
    if (size > maxBytes) break; // a huge page is not an API answer; keep what we have
    parts.push(buf);
  }
  return Buffer.concat(parts).toString('utf8');
}

export function tryJson(text: string): unknown {
  const t = text.trim();
  if (!t || (t[0] !== '{' && t[0] !== '[')) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

function classify(e: unknown): { failure: HttpFailure; message: string } {
  const err = e as { code?: string; name?: string; message?: string; cause?: { code?: string } };
  const code = err.code ?? err.cause?.code ?? '';
  const message = err.message ?? String(e);
  if (
    err.name === 'TimeoutError' ||
    err.name === 'AbortError' ||
    (code.startsWith('UND_ERR_') && /TIMEOUT/.test(code))
  ) {
    return { failure: 'timeout', message: 'timed out' };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return { failure: 'dns', message: `host not found (${code})` };
  if (
    ['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_SOCKET'].includes(code)
  ) {
    return { failure: 'connect', message: code };
  }
  return { failure: 'other', message };
}
