import { ALL, splitShare, type Share } from '../share.js';

// Which agent drives which sessions of a level (docs/distributed.md "Sessions"). Sessions are numbered 1..N (a decode
// cell's slot 1 is the prefill point's prompt), so session s goes to the agent at position (s - 1) mod L of the L
// agents taking part, in index order: with all K agents that is (s - 1) mod K = index, and agent 0 drives session 1.
// The shares together hold 1..N exactly once, so the agents together run the single client's level.

/** Every agent's share, by index: an agent beyond the N sessions (N < L) gets none. */
export function agentShares(total: number, agents: readonly number[]): Map<number, Share> {
  const order = [...new Set(agents)].sort((a, b) => a - b);
  const shares = splitShare(ALL, order.length, total);
  return new Map(shares.map((sh, at) => [order[at]!, sh]));
}
