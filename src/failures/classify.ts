// What an engine's error means for the run, decided once from its fields (status, body type and code, and
// the engine's own message): never by matching our own messages later.
import { CONTEXT_EXCEEDED, CONTEXT_EXCEEDED_TYPES } from '../engines/index.js';
import type { ErrorCode } from '../errors.js';
import type { ErrorBody } from './error-body.js';
import type { FailureReason } from './kinds.js';

// Each engine's "prompt (plus max_tokens) does not fit" wording and body type (src/engines, docs/engines.md "Error
// bodies"); llama.cpp's full unified pool ("Context size has been exceeded.", mid-stream, 500) is one of them, and
// fatal.ts keeps it a request failure, not a run stop.
const CONTEXT_TOO_LONG_CODES = new Set<string | number>(['context_length_exceeded']); // OpenAI
const AUTH_TYPES = new Set(['authentication_error']);
const MODEL_CODES = new Set<string | number>(['model_not_found']);

/** `status` is the response's HTTP status, undefined for an in-stream error event (its body may carry one). */
export function classifyError(status: number | undefined, e: ErrorBody): FailureReason {
  const s = status ?? e.status;
  if (s === 401 || s === 403 || (e.type !== undefined && AUTH_TYPES.has(e.type))) return 'auth';
  if (isContextTooLong(e)) return 'context_too_long';
  if ((e.code !== undefined && MODEL_CODES.has(e.code)) || (s === 404 && mentionsModel(e.message)))
    return 'model_not_found';
  return 'other';
}

function isContextTooLong(e: ErrorBody): boolean {
  if (e.type !== undefined && CONTEXT_EXCEEDED_TYPES.has(e.type)) return true;
  if (e.code !== undefined && CONTEXT_TOO_LONG_CODES.has(e.code)) return true;
  const m = e.message.toLowerCase();
  return CONTEXT_EXCEEDED.some((w) => m.includes(w.says));
}

function mentionsModel(message: string): boolean {
  return message.toLowerCase().includes('model');
}

/** The BenchError code an error answer means, for a probe or a single request. */
export function errorCodeFor(status: number | undefined, e: ErrorBody): ErrorCode {
  return fatalCodeFor(classifyError(status, e)) ?? 'TARGET_ERROR';
}

/** The stable exit code a classified failure stops the run with, or undefined when it is not fatal. */
export function fatalCodeFor(reason: FailureReason | undefined): ErrorCode | undefined {
  switch (reason) {
    case 'auth':
      return 'AUTH_FAILED';
    case 'model_not_found':
      return 'MODEL_NOT_FOUND';
    case 'context_too_long':
      return 'CONTEXT_TOO_LONG';
    default:
      return undefined;
  }
}
