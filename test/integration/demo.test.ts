import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { readRun, runDirs, tempDir } from './run-helpers.js';

describe('demo', () => {
  it(
    'starts the sim, runs a matrix showing every status, writes the result and report, prints where',
    { timeout: 150_000 },
    async () => {
      const out = tempDir('demo');
      const r = await runCliInProcess(['demo', '--out', out, '--duration', '0.5']);
      expect(r.code, r.stderr).toBe(0);
      const [dir] = runDirs(out);
      expect(r.stdout).toContain(`result: ${dir}/result.json`);
      expect(r.stdout).toContain(`report: ${dir}/report.html`);
      expect(existsSync(`${dir}/report.html`)).toBe(true);
      const { result } = readRun(dir!);
      expect(result.status).toBe('complete');
      expect(result.target.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      // The demo profile's GPU facts, marked simulated: never this machine's GPUs.
      expect(result.hardware).toMatchObject({ source: 'sim', gpuName: 'Simulated GPU', gpuCount: 1 });
      expect(result.hardware.type).toMatch(/^Simulated/);
      expect(result.hardware.gpuDriver).toBeUndefined();
      const statuses = new Set(result.decode.map((c) => c.status));
      expect([...statuses].sort()).toEqual(['Over capacity', 'Requests queued', 'Valid']);
      expect(
        result.decode.filter((c) => c.concurrency === 16 && c.contextTokens <= 2048).map((c) => c.status),
      ).toEqual(['Requests queued', 'Requests queued']);
    },
  );
});
