// Which agent drives which slots of a cell (docs/distributed.md "Slots"). Slots are numbered 1..N (slot 1 is the
// prefill point's prompt), so slot s goes to the agent at position (s - 1) mod L of the L agents taking part, in
// index order: with all K agents that is (s - 1) mod K = index, and agent 0 drives slot 1. The union of the shares
// is 1..N exactly once, so the agents together run the single-client cell.

/** The slots of the agent `index` among the agents `agents` (indexes, any order) of an N-slot cell. */
export function slotsOf(concurrency: number, agents: readonly number[], index: number): number[] {
  const order = [...new Set(agents)].sort((a, b) => a - b);
  const at = order.indexOf(index);
  if (at < 0) return [];
  const out: number[] = [];
  for (let s = 1 + at; s <= concurrency; s += order.length) out.push(s);
  return out;
}

/** Every agent's share, by index: agents with no slot (N < L) get an empty list. */
export function shareSlots(concurrency: number, agents: readonly number[]): Map<number, number[]> {
  return new Map([...new Set(agents)].map((a) => [a, slotsOf(concurrency, agents, a)]));
}
