import type { LoopGauge } from '../client/self-check.js';
import { type Clock } from '../clock.js';
import { setMaxListeners } from 'node:events';
import type { ErrorCode } from '../errors.js';
import type { Sender, Sent } from './sender.js';
import type { MeasureWindow } from '../stats/window.js';
import type { CellAgentsRun } from './agents/cell-agents.js';
import { runSlotLoop, slotsOfSpec, type SlotSpec } from './workers/slot-loop.js';

// What the slots tell the cell as they run: a slot's first token, and each failed request. onError returns
// true when the slot must stop (a fatal error, or the error limit the cell counts over all slots).
export interface SlotEvents {
  onFirstToken(slot: number): void;
  onError(fatal: { code: ErrorCode; sent: Sent } | undefined): boolean;
  early: AbortSignal; // the cell ends early (fatal, error limit, interrupt): backoffs stop waiting
  endEarly(): void; // a runner that cannot go on (a worker crashed) ends the cell's waits
}

// The N closed loops of a decode cell, wherever they run: in this thread or on a worker pool (workers/). The
// cell (decode-cell.ts) keeps the ramp, the window and the close; a runner only sends and reports.
export interface SlotRunner {
  start(events: SlotEvents): Promise<void>; // resolves once the loops run
  openWindow(window: MeasureWindow): void; // requests sent from now on are window requests; it closes at closeMs
  close(): void; // aborts everything in flight; the loops end
  finished(): Promise<Sent[]>; // every record, in end order, once the loops have ended
  loops?(): LoopGauge[]; // worker threads' event-loop gauges, for the client's self-check
  agents?(): CellAgentsRun; // slots on several machines: who drove the cell, their clocks, a lost agent
}

export function inThreadSlots(sender: Sender, clock: Clock, spec: SlotSpec): SlotRunner {
  const inflight = new AbortController();
  setMaxListeners(0, inflight.signal); // one listener per request in flight
  const sent: Sent[] = [];
  let phase: 'ramp' | 'window' = 'ramp';
  let closing = false;
  let loops: Promise<void>[] = [];
  return {
    async start(events) {
      setMaxListeners(0, events.early);
      loops = slotsOfSpec(spec).map((slot) =>
        runSlotLoop(slot, sender, clock, spec, inflight.signal, events.early, {
          closing: () => closing,
          phase: () => phase,
          onFirstToken: (slot) => events.onFirstToken(slot),
          onSent: (s) => sent.push(s),
          onError: (s, code) => events.onError(code ? { code, sent: s } : undefined),
        }),
      );
    },
    openWindow() {
      phase = 'window';
    },
    close() {
      closing = true;
      inflight.abort();
    },
    async finished() {
      await Promise.all(loops);
      return sent;
    },
  };
}
