import { describe, expect, it } from 'vitest';
import { fatalCode } from '../../src/bench/drive/fatal.js';
import type { RequestRecord } from '../../src/client/types.js';
import { classifyError, errorOf, parseErrorBody } from '../../src/failures/index.js';
import { errorFor } from '../../src/sim/flavors/errors.js';
import { FLAVORS } from '../../src/sim/profile-schema.js';

const rec = (error: RequestRecord['error']): RequestRecord => ({
  sentAtMs: 0,
  endAtMs: 1,
  chunks: [],
  outputTokens: 0,
  tokenCountSource: 'none',
  ok: false,
  ...(error ? { error } : {}),
});

describe('failure classification', () => {
  // Every flavor's too-long answer, as the sim writes it from docs/engines.md, is read as too long from the body
  // alone (Ollama's too: it truncates chat, but answers this when even the last message does not fit).
  it.each(FLAVORS)('%s: too long with and without max_tokens, auth, unknown model', (flavor) => {
    for (const maxTokens of [undefined, 4096]) {
      const e = errorFor(flavor, 'too-long', { promptTokens: 9000, maxTokens, maxModelLen: 8192 });
      expect(classifyError(e.status, parseErrorBody(e.body)), `${flavor} ${e.body}`).toBe('context_too_long');
    }
    const auth = errorFor(flavor, 'auth');
    if (auth.status === 401) expect(classifyError(auth.status, parseErrorBody(auth.body))).toBe('auth');
    const model = errorFor(flavor, 'model', { model: 'nope' });
    expect(classifyError(model.status, parseErrorBody(model.body)), `${flavor} ${model.body}`).toBe(
      'model_not_found',
    );
    const busy = errorFor(flavor, 'overload');
    expect(classifyError(busy.status, parseErrorBody(busy.body))).toBe('other');
  });

  it('keeps type, code and an in-body status as fields', () => {
    expect(
      errorOf({ error: { code: 400, type: 'exceed_context_size_error', message: 'request (9 tokens) ...' } }),
    ).toEqual({
      message: 'request (9 tokens) ...',
      type: 'exceed_context_size_error',
      code: 400,
      status: 400,
    });
    expect(
      errorOf({ object: 'error', message: 'm', type: 'NotFoundError', code: 'model_not_found' }),
    ).toEqual({
      message: 'm',
      type: 'NotFoundError',
      code: 'model_not_found',
    });
    expect(errorOf({ error: 'Model is overloaded', error_type: 'overloaded' })).toEqual({
      message: 'Model is overloaded',
      type: 'overloaded',
    });
    expect(parseErrorBody('')).toEqual({ message: '(empty body)' });
    expect(errorOf({ choices: [] })).toBeUndefined();
  });

  it('a classified refusal stops the run; a mid-stream 5xx (full KV pool) stays a request failure', () => {
    const tooLong = { message: 'x', reason: 'context_too_long' } as const;
    expect(fatalCode(rec({ kind: 'http_status', status: 400, ...tooLong }))).toBe('CONTEXT_TOO_LONG');
    expect(fatalCode(rec({ kind: 'stream_error_event', status: 422, ...tooLong }))).toBe('CONTEXT_TOO_LONG');
    expect(fatalCode(rec({ kind: 'stream_error_event', ...tooLong }))).toBe('CONTEXT_TOO_LONG');
    expect(fatalCode(rec({ kind: 'stream_error_event', status: 500, ...tooLong }))).toBeUndefined();
    expect(fatalCode(rec({ kind: 'http_status', status: 401, message: 'x', reason: 'auth' }))).toBe(
      'AUTH_FAILED',
    );
    expect(
      fatalCode(rec({ kind: 'http_status', status: 503, message: 'x', reason: 'other' })),
    ).toBeUndefined();
    expect(fatalCode(rec({ kind: 'timeout_idle', message: 'x' }))).toBeUndefined();
  });
});
