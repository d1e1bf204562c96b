import type { ErrorCode } from '../../../errors.js';
import type { SenderConfig, Sent } from '../sender.js';
import type { Sender } from '../sender.js';
import type { SlotSpec } from '../session-loop.js';

// Messages between the cell coordinator (main thread) and a slot worker. Everything here is structured-clone
// data: no functions, no AbortSignals, no TargetInfo.tokenize.
export type WorkerInfo = ConstructorParameters<typeof Sender>[1];

export interface WorkerSlot {
  slot: number;
  text: string;
  estTokens: number;
}

export type InitMessage = SlotSpec & {
  type: 'init';
  cfg: SenderConfig;
  info: WorkerInfo;
  slots: WorkerSlot[];
};

export type ToWorker = InitMessage | { type: 'open' } | { type: 'close' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'first'; slot: number; atMs: number }
  | { type: 'error'; slot: number; fatal?: { code: ErrorCode; sent: Sent } }
  | { type: 'done'; sent: Sent[]; cpuMs: number }
  | { type: 'crash'; message: string };
