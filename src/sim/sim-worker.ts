import { parentPort, workerData } from 'node:worker_threads';
import { startSim, type SimOptions } from './server.js';

// The sim on its own thread (src/sim/worker-sim.ts): a demo's engine must not share the client's event loop, or
// the client's self-check measures the engine's work as its own and every stamp waits behind it.
const sim = await startSim(workerData as SimOptions);
parentPort!.postMessage({ baseUrl: sim.baseUrl, profile: sim.profile });
parentPort!.on('message', (m: unknown) => {
  if (m !== 'close') return;
  void sim.close().then(() => parentPort!.close());
});
