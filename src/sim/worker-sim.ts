import { startModuleWorker } from '../worker-start.js';
import type { Profile } from './profile-schema.js';
import type { SimOptions } from './server.js';

export interface WorkerSim {
  baseUrl: string;
  profile: Profile;
  close(): Promise<void>;
}

// Starts the sim on a worker thread and resolves once it listens; close() stops it and ends the thread.
export function startSimInWorker(opts: Pick<SimOptions, 'profile' | 'host' | 'port'>): Promise<WorkerSim> {
  const worker = startModuleWorker(
    new URL('./sim-worker.ts', import.meta.url),
    new URL('./sim-worker.js', import.meta.url),
    { workerData: opts },
  );
  return new Promise((resolve, reject) => {
    // A sim that fails to start (a bad profile, a taken port) errors or exits before it says where it listens.
    const failed = (e: unknown) =>
      reject(e instanceof Error ? e : new Error(`the sim's thread exited (${String(e)})`));
    worker.once('error', failed);
    worker.once('exit', failed);
    worker.once('message', (m: { baseUrl: string; profile: Profile }) => {
      worker.off('error', failed);
      worker.off('exit', failed);
      worker.on('error', () => {}); // after startup the client sees a dead sim as refused connections
      const exited = new Promise<void>((done) => worker.once('exit', () => done()));
      resolve({
        ...m,
        close: async () => {
          worker.postMessage('close');
          await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())]);
          await worker.terminate();
        },
      });
    });
  });
}
