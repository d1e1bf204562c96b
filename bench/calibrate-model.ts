// Model half of calibration: every cell of both seeds, the method applied to the engine model in virtual time
// (src/sim/what-if.ts, no HTTP), printed next to the seed. Usage: npm run bench:calibrate-model [-- --window=30]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadProfile } from '../src/sim/profiles.js';
import { overCapacity, simulateCell, simulatePrefill } from '../src/sim/what-if.js';
import { benchArgs } from './lib/args.js';

interface SeedRow {
  phase: 'prefill' | 'decode';
  context: string;
  contextTokens: number;
  concurrency: number;
  status: string;
  totalTokPerS: number | null;
  perRequestTokPerS: number | null;
}

const SEEDS: Array<[string, string]> = [
  ['rtx-pro-6000x8-glm-5.3-flash', '000_9816ff1652ee407d.json'],
  ['h200x4-glm-5.3-flash-dflash', '001_e957ef8128caa214.json'],
];
const windowS = benchArgs(
  {
    name: 'bench:calibrate-model',
    about: 'Every cell of both seeds through the engine model in virtual time, next to the seed.',
    positionals: ['window'],
  },
  { window: { type: 'number', default: 30, help: "each cell's window, seconds" } },
).window;
const seedDir = fileURLToPath(new URL('../test/fixtures/seeds/', import.meta.url));
const fmt = (v: number | null | undefined) =>
  v === null || v === undefined ? '—' : v >= 100 ? v.toFixed(0) : v.toFixed(1);
const dev = (sim: number | null | undefined, seed: number | null | undefined) =>
  sim === null || sim === undefined || !seed ? '' : `${(((sim - seed) / seed) * 100).toFixed(1)}%`;

let within = 0;
let compared = 0;
let statusMatch = 0;
let rows = 0;
for (const [name, file] of SEEDS) {
  const p = loadProfile(name);
  const seed = (JSON.parse(readFileSync(seedDir + file, 'utf8')) as { rows: SeedRow[] }).rows;
  console.log(`\n### ${name} (model, virtual time, ${windowS} s windows)\n`);
  console.log(
    '| phase | context | N | seed status | sim status | seed total tok/s | sim | Δ | seed per-req tok/s | sim | Δ |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of seed) {
    rows++;
    if (r.phase === 'prefill') {
      const m = simulatePrefill(p, r.contextTokens);
      const d = Math.abs(m.tokensPerS - (r.totalTokPerS ?? 0)) / (r.totalTokPerS ?? 1);
      compared++;
      if (d <= 0.1) within++;
      statusMatch++;
      console.log(
        `| prefill | ${r.context} | 1 | ${r.status} | Valid | ${fmt(r.totalTokPerS)} | ${fmt(m.tokensPerS)} | ${dev(m.tokensPerS, r.totalTokPerS)} | | | |`,
      );
      continue;
    }
    if (overCapacity(p, r.contextTokens, r.concurrency)) {
      if (r.status === 'Over capacity') statusMatch++;
      console.log(`| decode | ${r.context} | ${r.concurrency} | ${r.status} | Over capacity | | | | | | |`);
      continue;
    }
    // As the seed's run did: the context's levels in ascending order, each leaving its slots' prompts cached.
    const before = seed.filter(
      (x) =>
        x.phase !== 'prefill' &&
        x.contextTokens === r.contextTokens &&
        x.concurrency < r.concurrency &&
        x.status !== 'Over capacity',
    );
    const cachedSlots = Math.max(0, ...before.map((x) => x.concurrency));
    const m = simulateCell(p, {
      contextTokens: r.contextTokens,
      concurrency: r.concurrency,
      windowS,
      cachedSlots,
    });
    if (m.status === r.status) statusMatch++;
    for (const [a, b] of [
      [m.totalTokensPerS, r.totalTokPerS],
      [m.perRequestTokensPerS, r.perRequestTokPerS],
    ] as const) {
      if (a === null || b === null) continue;
      compared++;
      if (Math.abs(a - b) / b <= 0.1) within++;
    }
    console.log(
      `| decode | ${r.context} | ${r.concurrency} | ${r.status} | ${m.status} | ${fmt(r.totalTokPerS)} | ${fmt(m.totalTokensPerS)} | ${dev(m.totalTokensPerS, r.totalTokPerS)} | ${fmt(r.perRequestTokPerS)} | ${fmt(m.perRequestTokensPerS)} | ${dev(m.perRequestTokensPerS, r.perRequestTokPerS)} |`,
    );
  }
}
console.log(`\n${within}/${compared} figures within 10% of the seed; ${statusMatch}/${rows} statuses match.`);
