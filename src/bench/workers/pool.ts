import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

// Starts the slot worker: the compiled .js in dist, the .ts source (through tsx's loader) when run from source.
export function startSlotWorker(): Worker {
  const ts = new URL('./slot-worker.ts', import.meta.url);
  if (existsSync(fileURLToPath(ts))) {
    const hasTsx = process.execArgv.some((a) => a.includes('tsx'));
    return new Worker(ts, { execArgv: hasTsx ? process.execArgv : [...process.execArgv, '--import', 'tsx'] });
  }
  return new Worker(new URL('./slot-worker.js', import.meta.url));
}

// Slots 1..n dealt round-robin over at most n workers, so every worker carries the same load.
export function assignSlots(n: number, workers: number): number[][] {
  const w = Math.max(1, Math.min(workers, n));
  const out: number[][] = Array.from({ length: w }, () => []);
  for (let slot = 1; slot <= n; slot++) out[(slot - 1) % w]!.push(slot);
  return out;
}
