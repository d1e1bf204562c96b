import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

// Starts the slot worker: the compiled .js in dist; from source (tsx, vitest) the .ts file, loaded after tsx's
// hooks are registered inside the worker (Node 20 does not carry --import hooks into a worker's entry).
export function startSlotWorker(): Worker {
  const ts = new URL('./slot-worker.ts', import.meta.url);
  if (!existsSync(fileURLToPath(ts))) return new Worker(new URL('./slot-worker.js', import.meta.url));
  const api = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const boot = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(ts.href)}); });`;
  return new Worker(boot, { eval: true });
}

// Slots 1..n dealt round-robin over at most n workers, so every worker carries the same load.
export function assignSlots(n: number, workers: number): number[][] {
  const w = Math.max(1, Math.min(workers, n));
  const out: number[][] = Array.from({ length: w }, () => []);
  for (let slot = 1; slot <= n; slot++) out[(slot - 1) % w]!.push(slot);
  return out;
}
