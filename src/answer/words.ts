import type { ServerLimits } from './limits.js';

// Words the reasons for an answer share, in users (src/answer/reasons.ts) and in requests per second
// (src/answer/rate-reasons.ts): one home, so both say a thing the same way.

export const users = (n: number): string => `${n} user${n === 1 ? '' : 's'}`;

export const reqS = (r: number): string => `${r} req/s`;

/** What a llama.cpp server has instead of seats: slots split apart (its 'split' layout). */
export const seatsWord = (l: ServerLimits): string =>
  l.engine.limits.layouts.includes('split') ? 'slots' : 'seats';

/** No engine setting moves this limit: the hardware does, or `rest` (what else would, after "tensor parallel)"). */
export const gpuChange = (rest: string): string =>
  `no setting raises it: more or faster GPUs (tensor parallel), ${rest}`;
