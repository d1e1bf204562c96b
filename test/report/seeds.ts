import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { importV062Text } from '../../src/results/import-v062.js';
import type { RunResult } from '../../src/results/schema.js';

// The two v0.6.2 seed reports: text form, parsed rows, and the result our importer makes of them.
// The two seed reports (v0.6.2 text and JSON), kept in the repository so CI (a fresh clone) has them.
const SEEDS_DIR = fileURLToPath(new URL('../fixtures/seeds/', import.meta.url));

export const SEEDS = [
  { id: '000_9816ff1652ee407d', name: 'RTX PRO 6000 ×8' },
  { id: '001_e957ef8128caa214', name: 'H200 ×4' },
] as const;

export interface SeedRow {
  phase: 'prefill' | 'decode';
  context: string;
  contextTokens: number;
  concurrency: number;
  status: string;
  totalTokPerS: number | null;
  perRequestTokPerS: number | null;
  ttftMs: number | null;
  tbtMs: number | null;
  avgActive: number | null;
  completed: number | null;
  outputTokens: number | null;
  measuredS: number | null;
}

export const seedText = (id: string) => readFileSync(`${SEEDS_DIR}${id}.txt`, 'utf8');
export const seedRows = (id: string) =>
  (JSON.parse(readFileSync(`${SEEDS_DIR}${id}.json`, 'utf8')) as { rows: SeedRow[] }).rows;
export const seedResult = (id: string): RunResult => importV062Text(seedText(id));

/** The seed's "All measurements" rows, exactly as printed. */
export function seedMeasurementLines(id: string): string[] {
  return seedText(id)
    .split('\n')
    .filter((l) => /^\| (Prefill|Sustained decode) \|/.test(l));
}
