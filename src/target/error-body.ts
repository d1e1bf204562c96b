import type { ErrorCode } from '../errors.js';
import { tryJson } from './http.js';

// Every engine's error body in one reader (engines.md error sections): OpenAI nested, flat
// `{object:"error"}`, TGI `{error, error_type}`, `{"error":"Unauthorized"}`, FastAPI `{detail}`, empty.
export interface ErrorBody {
  message: string;
  type?: string;
  code?: string | number;
}

export function parseErrorBody(text: string): ErrorBody {
  const j = tryJson(text);
  if (j && typeof j === 'object' && !Array.isArray(j)) {
    const o = j as Record<string, unknown>;
    const e = o.error;
    if (e && typeof e === 'object') {
      const eo = e as Record<string, unknown>;
      return {
        message: String(eo.message ?? JSON.stringify(eo)),
        type: asStr(eo.type),
        code: asCode(eo.code ?? eo.http_status_code),
      };
    }
    if (typeof e === 'string') return { message: e, type: asStr(o.error_type) };
    if (typeof o.message === 'string')
      return { message: o.message, type: asStr(o.type), code: asCode(o.code) };
    if (o.detail !== undefined)
      return { message: typeof o.detail === 'string' ? o.detail : JSON.stringify(o.detail) };
  }
  const t = text.trim();
  return { message: t.startsWith('<') ? 'HTML page' : t.slice(0, 300) || '(empty body)' };
}

const CONTEXT_PATTERNS = [
  /maximum context length/i,
  /context length/i,
  /exceed_context_size_error|exceeds the available context size/i,
  /must have less than \d+ tokens/i,
  /max_new_tokens` must be <=/i,
  /should not exceed max_seq_len/i,
  /context size has been exceeded/i,
];

// The BenchError code a non-2xx answer means, for a probe or a single request.
export function errorCodeFor(status: number, body: ErrorBody): ErrorCode {
  if (status === 401 || status === 403 || body.type === 'authentication_error') return 'AUTH_FAILED';
  if (CONTEXT_PATTERNS.some((p) => p.test(body.message)) || body.type === 'exceed_context_size_error') {
    return 'CONTEXT_TOO_LONG';
  }
  if (status === 404 && /model/i.test(body.message)) return 'MODEL_NOT_FOUND';
  return 'TARGET_ERROR';
}

function asStr(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
function asCode(v: unknown): string | number | undefined {
  return typeof v === 'string' || typeof v === 'number' ? v : undefined;
}
