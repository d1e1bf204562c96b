import { describe, expect, it } from 'vitest';
import { startSim } from '../../src/sim/server.js';
import { runCliInProcess } from '../helpers/cli.js';

// Probe says what run records for the sim, not "Hardware unknown ... pass --gpu-name".
describe('probe of the sim', () => {
  it('reports simulated hardware, and keeps what the user states', async () => {
    const sim = await startSim({ profile: 'tiny', host: '127.0.0.1', port: 0, seed: 1 });
    try {
      const plain = await runCliInProcess(['probe', '--base-url', sim.baseUrl]);
      expect(plain.code, plain.stderr).toBe(0);
      const hw = plain.stdout.split('\n').find((l) => l.startsWith('Hardware'))!;
      // The tiny profile's GPU, as the sim serves it (GET /sim/hardware), marked simulated.
      expect(hw).toMatch(/^Hardware\s+1 × Simulated GPU 24 GB \(24 GB total\) \[sim\]$/);
      const stated = await runCliInProcess([
        'probe',
        '--base-url',
        sim.baseUrl,
        '--gpu-name',
        'H200',
        '--json',
      ]);
      const info = JSON.parse(stated.stdout) as { hardware: { gpuName?: string; source?: string } };
      expect(info.hardware).toMatchObject({ gpuName: 'H200', source: 'sim' });
    } finally {
      await sim.close();
    }
  });
});
