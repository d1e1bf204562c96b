import type { ErrorCode } from '../../errors.js';
import { sleep, type Clock } from '../../clock.js';
import { fatalCode } from './fatal.js';
import type { Sender, Sent } from './sender.js';
import type { Options } from '../../config/options.js';

// The closed loop of one slot (docs/method.md "Sustained decode cell"), on the main thread and in workers alike: send,
// keep the record, re-send at once after a success or an abort, back off after an error. Which errors stop the
// cell is the caller's decision (onError), since the error limit counts across all slots.
export interface SlotLoopHooks {
  closing(): boolean;
  phase(): 'ramp' | 'window';
  onFirstToken(slot: number, atMs: number): void;
  onSent(s: Sent): void;
  // Returns true when this slot must stop (fatal error or error limit).
  onError(s: Sent, fatal: ErrorCode | undefined): boolean;
}

// A decode cell's place in the matrix.
export interface CellAt {
  contextTokens: number;
  concurrency: number;
}

// What each slot's closed loop sends, in this thread or a worker (workers/protocol.ts carries it as is).
export type SlotSpec = CellAt &
  Pick<Options<'run'>, 'maxOutput'> & {
    cell: string; // the requests.jsonl key (src/results/cell-key.ts)
    firstTokenTimeoutMs: number;
    share?: number[]; // the slots this runner drives (an agent's share, docs/distributed.md); default 1..concurrency
  };

/** The slots a runner drives: its share, or all of 1..concurrency. */
export const slotsOfSpec = (spec: Pick<SlotSpec, 'share' | 'concurrency'>): number[] =>
  spec.share ?? Array.from({ length: spec.concurrency }, (_, i) => i + 1);

// Bounds the closed loop against a server that fails instantly: the cell stops (Failed) after this many errors
// across all its slots.
export const errorLimit = (n: number): number => Math.max(10, 2 * n);

export const backoffMs = (consecutive: number): number => Math.min(1000, 25 * 2 ** Math.min(consecutive, 6));

export async function runSlotLoop(
  slot: number,
  sender: Sender,
  clock: Clock,
  spec: SlotSpec,
  inflight: AbortSignal,
  early: AbortSignal,
  hooks: SlotLoopHooks,
): Promise<void> {
  let consecutive = 0;
  let seen = false;
  while (!hooks.closing()) {
    const s = await sender.send({
      cell: spec.cell,
      phase: hooks.phase(),
      contextTokens: spec.contextTokens,
      concurrency: spec.concurrency,
      slot,
      maxOutput: spec.maxOutput,
      signal: inflight,
      firstTokenTimeoutMs: spec.firstTokenTimeoutMs,
      onFirstToken: (atMs) => {
        if (seen) return;
        seen = true;
        hooks.onFirstToken(slot, atMs);
      },
    });
    hooks.onSent(s);
    const kind = s.record.error?.kind;
    if (s.record.ok || kind === 'aborted') {
      consecutive = 0;
      continue;
    }
    consecutive += 1;
    if (hooks.onError(s, fatalCode(s.record))) return;
    await sleep(clock, backoffMs(consecutive), early);
  }
}
