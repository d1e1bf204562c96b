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
    worker.once('error', reject);
    worker.once('message', (m: { baseUrl: string; profile: Profile }) => {
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
