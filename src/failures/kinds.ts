// The one list of ways a request or an HTTP exchange can fail. Request kinds are stored in results
// (errors by kind, requests.jsonl); the non-streaming helper uses a subset plus its whole-exchange timeout.
export const ERROR_KINDS = [
  'connect',
  'http_status',
  'timeout_connect',
  'timeout_first_token',
  'timeout_idle',
  'stream_error_event',
  'stream_truncated',
  'bad_json',
  'aborted',
  'line_too_long', // a stream line or event past the decoder cap (src/client/decode/line-decoder.ts)
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** A non-streaming exchange (src/client/http.ts): no phases, one deadline for the whole exchange. */
export type HttpFailureKind = Extract<ErrorKind, 'connect' | 'http_status' | 'bad_json'> | 'timeout';

/** What an error means for the run, decided once where the error is read (classify.ts). */
export type FailureReason = 'auth' | 'model_not_found' | 'context_too_long' | 'other';
