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
