import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../../worker-start.js';
import type { Sender } from '../sender.js';
import type { FromWorker } from './protocol.js';

// Starts the session worker (src/worker-start.ts finds the compiled or the source module).
export function startSessionWorker(): Worker {
  return startModuleWorker(
    new URL('./session-worker.ts', import.meta.url),
    new URL('./session-worker.js', import.meta.url),
  );
}

export interface WorkerPool {
  threads: Worker[];
  ready: Promise<void>;
  idle(): void; // arms the idle timer that ends the threads when no cell follows
}

const IDLE_MS = 30_000;
const pools = new WeakMap<Sender, WorkerPool & { timer?: NodeJS.Timeout }>();

// One pool per sender (one run), kept across its cells so the threads' JIT state and keep-alive connections
// are warm from the second cell on. The threads are unref'd: they never keep the process alive, and they end
// after IDLE_MS without a cell.
export function workerPool(sender: Sender, size: number): WorkerPool {
  const have = pools.get(sender);
  if (have && have.threads.length === size) {
    if (have.timer) clearTimeout(have.timer);
    return have;
  }
  if (have) void closePool(sender);
  const threads = Array.from({ length: size }, () => startSessionWorker());
  for (const t of threads) t.unref();
  const ready = Promise.all(
    threads.map(
      (t) =>
        new Promise<void>((resolve) => {
          const onReady = (m: FromWorker) => {
            if (m.type !== 'ready') return;
            t.off('message', onReady);
            resolve();
          };
          t.on('message', onReady);
          t.once('error', () => resolve());
          t.once('exit', () => resolve());
        }),
    ),
  ).then(() => undefined);
  const pool: WorkerPool & { timer?: NodeJS.Timeout } = {
    threads,
    ready,
    idle() {
      if (pool.timer) clearTimeout(pool.timer);
      pool.timer = setTimeout(() => void closePool(sender), IDLE_MS);
      pool.timer.unref();
    },
  };
  pools.set(sender, pool);
  return pool;
}

export async function closePool(sender: Sender): Promise<void> {
  const pool = pools.get(sender);
  if (!pool) return;
  pools.delete(sender);
  if (pool.timer) clearTimeout(pool.timer);
  await Promise.all(pool.threads.map((t) => t.terminate()));
}
