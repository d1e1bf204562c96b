import type { ClientLoad, LoopGauge } from '../../client/self-check.js';
import type { ErrorCode } from '../../errors.js';
import type { LevelSpec } from '../../load/sessions.js';
import type { PromptBankSnapshot } from '../../prompts/bank.js';
import type { MeasureWindow } from '../../stats/window.js';
import type { Sent } from './sender.js';
import type { Share } from './share.js';

// The executors of a cell or a load level (docs/architecture.md "One run, from flag to report"): its sessions run
// in this thread (in-thread.ts), on worker threads (workers/) or over agents (agents/), each through the session
// loop (session-loop.ts). The caller (src/bench/decode-cell.ts) keeps the ramp, the window and the close; a runner
// only sends and reports.

// What a runner drives, as plain data (workers/protocol.ts and agents/protocol.ts carry it as is): the level's
// sessions, which of them are this runner's, and how to send and tag their requests. A decode cell is the closed
// level of the fixed workload (decode-cell.ts cellLevel).
export interface DriveSpec {
  cell: string; // the requests.jsonl key: a decode cell's ("decode 8192x4") or the level's key
  label: string; // the level in a message: "1K x4", "shared-prefix@2/s"
  level: LevelSpec; // the sessions' plans (src/load planLevel): each executor rebuilds its share from it
  firstTokenTimeoutMs: number;
  share?: Share; // the sessions this runner drives (share.ts); default all of the level's
  // A level's requests carry their session fields and the level's key (docs/result-schema.md "requests.jsonl"); a
  // decode cell's lines stay as they were.
  tagSessions?: boolean;
  // A scheduled level (open, trace): its window as offsets from the level's zero. A request is a window request
  // when scheduled in it (else a warm-up one), and no turn scheduled at or after its close is sent.
  window?: { openAfterMs: number; closeAfterMs: number };
  maxInFlight?: number; // this runner's part of --max-in-flight: an arrival waits until fewer are in flight
  bank?: PromptBankSnapshot; // the texts of every recipe but a slot's (src/prompts/bank.ts)
}

// What the sessions tell the caller as they run: a session's first token, and each failed request. onError returns
// true when the session must stop (a fatal error, or the error limit the caller counts over all sessions).
export interface SessionEvents {
  onFirstToken(session: number): void;
  onError(fatal: { code: ErrorCode; sent: Sent } | undefined): boolean;
  early: AbortSignal; // the cell ends early (fatal, error limit, interrupt): backoffs stop waiting
  endEarly(): void; // a runner that cannot go on (a worker crashed) ends the cell's waits
}

export interface SessionRunner {
  // Resolves once the sessions run, with the level's zero (its schedule's origin) on the caller's clock: atMs when
  // given (a later instant every executor reaches on its own clock), else now.
  start(events: SessionEvents, atMs?: number): Promise<number>;
  openWindow(window: MeasureWindow): void; // requests sent from now on are window requests; it closes at closeMs
  close(): void; // aborts everything in flight; the sessions end
  // Every record, in end order, once the sessions have ended: at the close, or before it when a scheduled level's
  // sessions have all run their turns (a caller may wait on it to drain the level before it closes).
  finished(): Promise<Sent[]>;
  loops?(): LoopGauge[]; // worker threads' event-loop gauges, for the client's self-check
  agents?(): CellAgentsRun; // sessions on several machines: who drove them, their clocks, a lost agent
}

// The client's own load over the window (src/client/self-check.ts ClientMonitor); injectable so a virtual-time
// run, whose window is not real time, measures nothing.
export interface CellMonitor {
  start(workers?: readonly LoopGauge[]): void;
  stop(): ClientLoad;
}

// An agent's clock against the coordinator's (agents/offsets.ts): coordinator time = agent time + offsetMs, known
// to within ±uncertaintyMs (half the round trip: the true offset lies in that interval whatever the split of the
// trip between the two directions).
export interface ClockOffset {
  offsetMs: number;
  uncertaintyMs: number;
  atMs: number; // agent clock: the middle of the sample it came from
}

// What the agents' runner knows of a cell or level once it has ended: which agents drove it, their clocks, their
// loads, and the agent lost on the way, if any.
export interface RemoteOfCell {
  agent: number;
  host: string;
  slots: number;
  before?: ClockOffset;
  after?: ClockOffset;
}

export interface CellAgentsRun {
  remotes: RemoteOfCell[];
  loads: Array<{ agent: number; load: ClientLoad }>; // the remote agents' own self-checks over the window
  lost?: string; // "agent 2 (host) fell silent ...": the cell cannot stand
}

/** The threads sessions run on: the main thread, plus N worker threads when N > 1 (one runs in-thread). */
export const clientThreads = (workers: number | undefined): number => ((workers ?? 1) > 1 ? 1 + workers! : 1);
