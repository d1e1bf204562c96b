// The rules of a decode cell that every layer shares (docs/method.md "Vocabulary", "Plan", "Status of a cell"):
// its statuses and which of them count as measured, its key in the matrix, the KV cache it needs, how reports
// name and colour each status, and the defaults the option table and the result readers share. One home each,
// below every folder (docs/architecture.md); test/rules-home.test.ts fails when one is typed out elsewhere again.

export const CELL_STATUSES = ['Valid', 'Requests queued', 'Over capacity', 'Failed'] as const;
export type CellStatus = (typeof CELL_STATUSES)[number];

// Measured: the cell ran whole and its window has figures, whether or not requests waited in a queue.
export const isMeasured = (status: string | undefined): boolean =>
  status === 'Valid' || status === 'Requests queued';

// A cell's place in the matrix, context tokens x concurrency: "8192x16" (the form --cells takes).
export const cellKey = (contextTokens: number, concurrency: number): string =>
  `${contextTokens}x${concurrency}`;

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
export const shortStatus = (status: CellStatus): string =>
  status === 'Requests queued' ? 'queued' : status === 'Over capacity' ? 'over cap.' : status;

// A status's CSS class in the HTML reports (src/report/html/styles.ts gives each its colour).
export const STATUS_CLASS: Readonly<Record<CellStatus, string>> = {
  Valid: 'st-valid',
  'Requests queued': 'st-queued',
  'Over capacity': 'st-over',
  Failed: 'st-failed',
};
