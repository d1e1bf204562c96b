// The rules of a decode cell that every layer shares (docs/method.md "Vocabulary", "Plan", "Status of a cell"):
// its statuses and which of them count as measured, its key in the matrix, the KV cache it needs, how reports
// name and colour each status, and the defaults the option table and the result readers share. One home each,
// below every folder (docs/architecture.md); test/rules-home.test.ts fails when one is typed out elsewhere again.

export const CELL_STATUSES = ['Valid', 'Requests queued', 'Over capacity', 'Failed'] as const;
export type CellStatus = (typeof CELL_STATUSES)[number];

// A load level (docs/workloads.md "Figures of a load level") has no Over capacity (nothing is skipped up front) and
// one status of its own: Client-bound, the client could not keep to its schedule, so the level is not judged.
export const LEVEL_STATUSES = ['Valid', 'Requests queued', 'Failed', 'Client-bound'] as const;
export type LevelStatus = (typeof LEVEL_STATUSES)[number];

// How an open loop's arrivals are spaced (docs/workloads.md): shared by the arrival processes and the
// result that stores them.
export const ARRIVAL_KINDS = ['poisson', 'gamma', 'constant'] as const;
export type ArrivalKind = (typeof ARRIVAL_KINDS)[number];

// Measured: the cell ran whole and its window has figures, whether or not requests waited in a queue.
export const isMeasured = (status: string | undefined): boolean =>
  status === 'Valid' || status === 'Requests queued';

// A cell's place in the matrix, context tokens x concurrency: "8192x16" (the form --cells takes).
export const cellKey = (contextTokens: number, concurrency: number): string =>
  `${contextTokens}x${concurrency}`;

// What a level's key needs of its load: a concurrency, a rate, or the trace's own schedule.
export type LevelKeyLoad =
  { model: 'closed'; concurrency: number } | { model: 'open'; rate: number } | { model: 'trace' };

// A load level's place in the run (requests.jsonl, resume): its row (the context of the fixed workload, else the
// workload's label) and its load after the last @: "8192@2.5/s", "shared-prefix:prefixes=4,prefix=2K,suffix=256@x16",
// "mooncake:file=t.jsonl,block=512@trace". (The fixed workload's closed levels are decode cells, keyed by cellKey.)
export function levelKey(row: string, load: LevelKeyLoad): string {
  if (load.model === 'closed') return `${row}@x${load.concurrency}`;
  return load.model === 'open' ? `${row}@${load.rate}/s` : `${row}@trace`;
}

// KV cache a cell needs: N requests, each its prompt and its whole output cap ("Over capacity" when it exceeds
// the server's KV capacity, src/plan/capacity.ts).
export const kvDemandTokens = (contextTokens: number, concurrency: number, maxOutput: number): number =>
  concurrency * (contextTokens + maxOutput);

// Requests that failed, by kind; those aborted at the window close are how a window ends, not failures.
export function failedRequests(errors: Partial<Record<string, number>> | undefined): Array<[string, number]> {
  return Object.entries(errors ?? {}).filter((e): e is [string, number] => e[0] !== 'aborted' && !!e[1]);
}

// A stall (docs/method.md "Figures of a cell"): a gap between two chunks of one request longer than both 1 s and 10 x the cell's median chunk gap.
// Counted per request; the stalled time is the union of the gaps (an engine-wide pause that hits every stream
// at once counts N stalls but its length once).
export const STALL_MIN_MS = 1000;
export const STALL_GAP_FACTOR = 10;

/** The gap at or above which a pause is a stall, given the median gap it stands among. */
export function stallThresholdMs(medianGapMs: number | null): number {
  return Math.max(STALL_MIN_MS, STALL_GAP_FACTOR * (medianGapMs ?? 0));
}

// The client had no slack left whatever the cell's pace: at 90% of a core per thread, or its busiest event loop
// 90% busy, it cannot stamp arrivals on time (the client judges itself by it; the reports tell a busy machine
// from a saturated client by it).
export const CPU_BOUND_PCT = 90;
export const LOOP_BUSY_PCT = 90;
export function clientSaturated(load: {
  cpuPctPerThread: number;
  busiestLoopPct?: number | undefined;
}): boolean {
  return (
    load.cpuPctPerThread >= CPU_BOUND_PCT ||
    (load.busiestLoopPct !== undefined && load.busiestLoopPct >= LOOP_BUSY_PCT)
  );
}

// --max-output's default, and what a result or a what-if that does not say assumes.
export const DEFAULT_MAX_OUTPUT = 4096;

// A status where a table column or a compare cell has no room for its name: the two long names shortened.
export const shortStatus = (status: CellStatus | LevelStatus): string =>
  status === 'Requests queued' ? 'queued' : status === 'Over capacity' ? 'over cap.' : status;

// A status's CSS class in the HTML reports (src/report/html/styles.ts gives each its colour).
export const STATUS_CLASS: Readonly<Record<CellStatus | LevelStatus, string>> = {
  Valid: 'st-valid',
  'Requests queued': 'st-queued',
  'Over capacity': 'st-over',
  Failed: 'st-failed',
  'Client-bound': 'st-client-bound',
};

// Requests a queued cell's server ran at once, and what says so (docs/method.md "Status of a cell"): one rule for
// the answer's limit (src/answer/reasons.ts) and the twin's max running sequences (src/twin/fit.ts), so the two agree.
export type SeatsBasis = 'client ceiling' | 'server running' | 'server most running' | 'average active';
export interface SeatsCell {
  concurrency: number;
  status: string;
  avgActive: number | null;
  clientQueue?: { queued: boolean; peakStreaming: number } | undefined;
  serverSamples?: ReadonlyArray<{ running?: number | null | undefined }> | undefined;
  maxRunning?: number | null | undefined;
}
export interface Seats {
  seats: number;
  basis: SeatsBasis;
}

// The median of the running gauge's samples, null without one.
function medianRunning(cell: SeatsCell): number | null {
  const r = (cell.serverSamples ?? [])
    .map((s) => s.running)
    .filter((v): v is number => typeof v === 'number' && Number.isFinite(v))
    .sort((a, b) => a - b);
  if (r.length === 0) return null;
  const m = Math.floor(r.length / 2);
  return r.length % 2 ? r[m]! : (r[m - 1]! + r[m]!) / 2;
}

/** The seats a cell's server showed: the client's ceiling where its timeline saw the queue, else the server's
 * median running, else the client's ceiling or the server's most running below N; undefined where all N ran. */
export function seatsSeen(cell: SeatsCell): Seats | undefined {
  const n = cell.concurrency;
  const q = cell.clientQueue;
  if (q?.queued) return { seats: q.peakStreaming, basis: 'client ceiling' };
  // N streaming at once needs N seats: a lower server count is a sample taken between one request's end and the
  // next one's start (the client's own timeline, docs/method.md "Queueing seen by the client").
  if (q && q.peakStreaming >= n) return undefined;
  const m = medianRunning(cell);
  if (m !== null && m < n - 0.5) return { seats: Math.round(m), basis: 'server running' };
  if (q && q.peakStreaming < n) return { seats: q.peakStreaming, basis: 'client ceiling' };
  return typeof cell.maxRunning === 'number' && cell.maxRunning < n
    ? { seats: cell.maxRunning, basis: 'server most running' }
    : undefined;
}

export const seatsOf = (cell: SeatsCell): number | undefined => seatsSeen(cell)?.seats;

/** Seats of a Requests queued cell; an imported one keeps no samples nor timeline: its average active is the seats. */
export function queuedSeats(cell: SeatsCell): Seats | undefined {
  if (cell.status !== 'Requests queued') return undefined;
  return (
    seatsSeen(cell) ??
    (!cell.clientQueue && cell.avgActive !== null
      ? { seats: Math.round(cell.avgActive), basis: 'average active' }
      : undefined)
  );
}
