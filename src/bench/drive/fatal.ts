import type { RequestRecord } from '../../client/types.js';
import { BenchError, type ErrorCode } from '../../errors.js';
import { fatalCodeFor } from '../../failures/classify.js';

// Request failures that no retry can fix (bad key, unknown model, prompt too long) stop the run or the
// context with a stable code: an HTTP error, or an in-stream validation error (TGI's 422), as the client
// classified it. A 5xx mid-stream (llama.cpp's full KV pool) stays a request failure.
export function fatalCode(r: RequestRecord): ErrorCode | undefined {
  const e = r.error;
  if (r.ok || !e) return undefined;
  const refused =
    e.kind === 'http_status' ||
    (e.kind === 'stream_error_event' && (e.status === undefined || e.status < 500));
  return refused ? fatalCodeFor(e.reason) : undefined;
}

export function fatalError(code: ErrorCode, r: RequestRecord, what: string): BenchError {
  const msg = r.error?.message ?? 'request failed';
  switch (code) {
    case 'AUTH_FAILED':
      return new BenchError(code, `the server refused the API key (${msg}) during ${what}.`, {
        hint: 'Check --api-key / OPENAI_API_KEY / --api-key-file.',
      });
    case 'MODEL_NOT_FOUND':
      return new BenchError(code, `the server does not serve the model (${msg}) during ${what}.`, {
        hint: 'Pass --model with a name the server lists (probe prints them).',
      });
    default:
      return new BenchError(code, `the server rejected the prompt as too long (${msg}) during ${what}.`, {
        hint: 'Use smaller --contexts or --max-output, or raise the server max model length.',
      });
  }
}
