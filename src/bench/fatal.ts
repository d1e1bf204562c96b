import type { RequestRecord } from '../client/types.js';
import { BenchError, type ErrorCode } from '../errors.js';
import { errorCodeFor } from '../target/error-body.js';

// Request failures that no retry can fix: the run (or the context) stops with a stable code.
const FATAL: readonly ErrorCode[] = ['AUTH_FAILED', 'MODEL_NOT_FOUND', 'CONTEXT_TOO_LONG'];

export function fatalCode(r: RequestRecord): ErrorCode | undefined {
  if (r.ok || !r.error || r.error.kind !== 'http_status' || r.error.status === undefined) return undefined;
  const message = r.error.message.replace(/^HTTP \d+:\s*/, '');
  const code = errorCodeFor(r.error.status, { message });
  return FATAL.includes(code) ? code : undefined;
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
        hint: 'List models with `llm-inference-bench probe` and pass --model.',
      });
    default:
      return new BenchError(code, `the server rejected the prompt as too long (${msg}) during ${what}.`, {
        hint: 'Use smaller --contexts or --max-output, or raise the server max model length.',
      });
  }
}
