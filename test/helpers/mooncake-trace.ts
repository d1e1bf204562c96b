// A Mooncake-format trace for tests (docs/workloads.md "mooncake"), seeded: most requests continue an earlier
// one (its leading full blocks, then new ones), as the released traces do; every request starts with block 0 (a
// shared system prompt). Returned as lines of the file and as its text.
import { mulberry32 } from '../../src/rng.js';

export interface MooncakeRow {
  timestamp: number;
  input_length: number;
  output_length: number;
  hash_ids: number[];
}

export function mooncakeTrace(o: { requests: number; block: number; seed: number }): {
  rows: MooncakeRow[];
  text: string;
} {
  const rng = mulberry32(o.seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
  const rows: MooncakeRow[] = [];
  let nextId = 1;
  let t = 0;
  for (let i = 0; i < o.requests; i++) {
    const parent = i > 0 && rng() < 0.75 ? rows[int(0, i - 1)] : undefined;
    const full = parent ? Math.floor(parent.input_length / o.block) : 0;
    const reused = parent && full > 0 ? parent.hash_ids.slice(0, int(1, full)) : [0];
    const ids = [...reused];
    for (let m = int(reused.length > 1 ? 0 : 1, 4); m > 0; m--) ids.push(nextId++);
    // The last block is partial: between 1 and a whole block of it is used.
    const input = (ids.length - 1) * o.block + int(1, o.block);
    t += Math.round(-Math.log(1 - rng()) * 200);
    rows.push({ timestamp: t, input_length: input, output_length: int(1, 64), hash_ids: ids });
  }
  return { rows, text: rows.map((r) => JSON.stringify(r)).join('\n') };
}
