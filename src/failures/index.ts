export { ERROR_KINDS, type ErrorKind, type HttpFailureKind, type FailureReason } from './kinds.js';
export { errorOf, parseErrorBody, tryJson, type ErrorBody } from './error-body.js';
export { classifyError, errorCodeFor, fatalCodeFor } from './classify.js';
