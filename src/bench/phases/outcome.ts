import type { BenchError } from '../../errors.js';
import type { Sent } from '../drive/sender.js';

// What a measuring phase hands back: the requests it sent (for requests.jsonl) and its cell, or the fatal error
// that ends the context or the run. Errors travel this one way, as data; the run loop alone throws them.
export type Measured<T> =
  | { sent: Sent[]; cell: T; warnings: string[]; fatal?: BenchError } // fatal: the cell is kept, then the run stops
  | { sent: Sent[]; fatal: BenchError; warnings: string[] }
  | { sent: Sent[]; interrupted: true }; // Ctrl-C: nothing is kept of the cell in progress
