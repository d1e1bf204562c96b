import { flavorFacts } from '../../engines/index.js';
import type { Flavor } from '../profile-schema.js';

export type ErrorKind = 'auth' | 'model' | 'too-long' | 'bad-request' | 'overload' | 'server' | 'unavailable';

export interface ErrorInfo {
  message?: string;
  model?: string;
  promptTokens?: number;
  maxTokens?: number;
  maxModelLen?: number;
}

export interface HttpError {
  status: number;
  body: string; // may be empty
}

const json = (status: number, v: unknown): HttpError => ({ status, body: JSON.stringify(v) });

// Each engine's own wording (src/engines).
function tooLongMessage(f: Flavor, i: ErrorInfo): string {
  return flavorFacts(f).errors.tooLong!(i.maxModelLen ?? 0, i.promptTokens ?? 0, i.maxTokens);
}

// Status code and body of each engine's errors (docs/engines.md "Error bodies").
export function errorFor(f: Flavor, kind: ErrorKind, i: ErrorInfo = {}): HttpError {
  const msg = kind === 'too-long' ? tooLongMessage(f, i) : (i.message ?? defaultMessage(f, kind, i));
  return ERROR_BODY[f](kind, msg, i);
}

const ERROR_BODY: Record<Flavor, (kind: ErrorKind, msg: string, i: ErrorInfo) => HttpError> = {
  vllm: (kind, msg) => {
    if (kind === 'auth') return json(401, { error: 'Unauthorized' });
    const status = statusOf(kind, 400, 503);
    const type =
      kind === 'model'
        ? 'NotFoundError'
        : status === 400
          ? 'BadRequestError'
          : status >= 500
            ? 'InternalServerError'
            : 'ServiceUnavailableError';
    return json(status, { error: { message: msg, type, param: null, code: status } });
  },
  sglang: (kind, msg) => {
    if (kind === 'auth') return json(401, { error: 'Unauthorized' });
    const status = statusOf(kind, 400, 503);
    const type =
      kind === 'model' ? 'NotFoundError' : status === 400 ? 'BadRequestError' : 'InternalServerError';
    return json(status, {
      object: 'error',
      message: msg,
      type,
      param: null,
      code: kind === 'model' ? 'model_not_found' : status,
    });
  },
  llamacpp: llamacppError,
  tgi: tgiError,
  ollama: (kind, msg) => {
    const status = kind === 'auth' ? 401 : statusOf(kind, 400, 503);
    const type = status === 400 ? 'invalid_request_error' : status === 404 ? 'not_found_error' : 'api_error';
    return json(status, { error: { message: msg, type, param: null, code: null } });
  },
  trtllm: (kind, msg) => {
    const status = kind === 'auth' ? 401 : statusOf(kind, 400, 503);
    return json(status, {
      object: 'error',
      message: msg,
      type: status === 400 ? 'BadRequestError' : 'InternalServerError',
      param: null,
      code: status,
    });
  },
};

function llamacppError(kind: ErrorKind, msg: string, i: ErrorInfo): HttpError {
  if (kind === 'auth')
    return json(401, { error: { message: 'Invalid API Key', type: 'authentication_error', code: 401 } });
  if (kind === 'too-long')
    return json(400, {
      error: {
        code: 400,
        type: flavorFacts('llamacpp').errors.contextExceededTypes![0],
        message: msg,
        n_prompt_tokens: i.promptTokens ?? 0,
        n_ctx: i.maxModelLen ?? 0,
      },
    });
  const status = statusOf(kind, 400, 503);
  const type =
    kind === 'model'
      ? 'not_found_error'
      : status === 400
        ? 'invalid_request_error'
        : status === 503
          ? 'unavailable_error'
          : 'server_error';
  return json(status, { error: { code: status, message: msg, type } });
}

function tgiError(kind: ErrorKind, msg: string): HttpError {
  if (kind === 'auth') return { status: 401, body: '' };
  const status =
    kind === 'too-long' || kind === 'bad-request'
      ? 422
      : kind === 'overload'
        ? 429
        : kind === 'model'
          ? 404
          : kind === 'unavailable'
            ? 503
            : 500;
  const errorType =
    status === 422
      ? 'validation'
      : status === 429
        ? 'overloaded'
        : status === 503
          ? 'healthcheck'
          : 'generation';
  return json(status, { error: msg, error_type: errorType });
}

function statusOf(kind: ErrorKind, badRequest: number, overload: number): number {
  switch (kind) {
    case 'auth':
      return 401;
    case 'model':
      return 404;
    case 'too-long':
    case 'bad-request':
      return badRequest;
    case 'overload':
      return overload;
    case 'unavailable':
      return 503;
    case 'server':
      return 500;
  }
}

function defaultMessage(f: Flavor, kind: ErrorKind, i: ErrorInfo): string {
  switch (kind) {
    case 'model':
      return f === 'ollama'
        ? `model "${i.model ?? ''}" not found, try pulling it first`
        : `The model \`${i.model ?? ''}\` does not exist.`;
    case 'overload':
      return flavorFacts(f).errors.overloadMessage ?? 'Server overloaded';
    case 'unavailable':
      return 'Service unavailable';
    case 'server':
      return 'Internal server error (simulated)';
    case 'auth':
      return 'Unauthorized';
    default:
      return 'Bad request';
  }
}

// The JSON of an error event inside a stream (vLLM/TGI nest it, SGLang sends the flat body).
export function streamErrorEvent(f: Flavor, message: string, status = 500): string {
  switch (f) {
    case 'sglang':
    case 'trtllm':
      return JSON.stringify({
        object: 'error',
        message,
        type: 'InternalServerError',
        param: null,
        code: status,
      });
    case 'tgi':
      return JSON.stringify({ error: { message, http_status_code: status === 500 ? 422 : status } });
    case 'llamacpp':
      return JSON.stringify({ error: { code: status, message, type: 'server_error' } });
    default:
      return JSON.stringify({ error: { message, type: 'InternalServerError', param: null, code: status } });
  }
}
