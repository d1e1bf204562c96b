import type { ErrorCode } from '../../../errors.js';
import type { SenderConfig, Sent } from '../sender.js';
import type { Sender } from '../sender.js';
import type { DriveSpec } from '../runner.js';

// Messages between the level's coordinator (main thread) and a session worker. Everything here is structured-clone
// data: no functions, no AbortSignals, no TargetInfo.tokenize.
export type WorkerInfo = ConstructorParameters<typeof Sender>[1];

export interface WorkerSlot {
  slot: number;
  text: string;
  estTokens: number;
}

// A level's share: the worker builds its sessions' plans from the spec (src/load planLevel) and takes the slots'
// prompts from `slots` (a closed level of the fixed workload), every other prompt from the spec's bank.
export interface InitMessage {
  type: 'init';
  spec: DriveSpec;
  zeroMs: number; // the level's zero, epoch ms (the clock every thread of the process shares)
  cfg: SenderConfig;
  info: WorkerInfo;
  slots: WorkerSlot[];
}

export type ToWorker = InitMessage | { type: 'open' } | { type: 'close' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'first'; session: number; atMs: number }
  | { type: 'error'; session: number; fatal?: { code: ErrorCode; sent: Sent } }
  | { type: 'done'; sent: Sent[]; cpuMs: number }
  | { type: 'crash'; message: string };
