import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Exec } from '../../src/target/hardware.js';
import {
  applyHardwareOverrides,
  detectHardware,
  memoryGb,
  parseNvidiaSmi,
  parseRocmSmi,
  readGpuPowerW,
} from '../../src/target/hardware.js';

const rec = (f: string): string =>
  readFileSync(fileURLToPath(new URL(`../fixtures/hardware/${f}`, import.meta.url)), 'utf8');

// An exec that answers with recorded outputs; a tool missing from the map behaves as "not installed".
const fakeExec =
  (outputs: Record<string, string>): Exec =>
  (cmd) =>
    Promise.resolve(outputs[cmd]);

describe('hardware from recorded tool outputs', () => {
  it('nvidia-smi, 4 × H200', async () => {
    const hw = await detectHardware({
      local: true,
      exec: fakeExec({ 'nvidia-smi': rec('nvidia-smi-h200x4.csv') }),
    });
    expect(hw).toMatchObject({
      type: 'Discrete GPU',
      gpuName: 'H200',
      gpuCount: 4,
      gpuMemoryGb: 140,
      gpuMemoryGbTotal: 560,
      gpuDriver: '570.124.06',
      source: 'nvidia-smi',
    });
    expect(hw.os).toBe(process.platform);
  });

  it('nvidia-smi with CRLF, 8 × RTX PRO 6000 reads as the seed prints it (768 GB = 8 × 96 GB)', async () => {
    const hw = await detectHardware({
      local: true,
      exec: fakeExec({ 'nvidia-smi': rec('nvidia-smi-rtxpro6000x8.csv') }),
    });
    expect(hw).toMatchObject({
      gpuName: 'RTX PRO 6000 Blackwell Server Edition',
      gpuCount: 8,
      gpuMemoryGb: 96,
      gpuMemoryGbTotal: 768,
      gpuDriver: '580.95.05',
    });
  });

  it('power [N/A] is no reading, not zero', () => {
    expect(parseNvidiaSmi(rec('nvidia-smi-power-na.csv'))).toEqual([
      { name: 'NVIDIA GeForce RTX 4090', memoryMiB: 24564, driver: '550.54.14', powerW: undefined },
    ]);
  });

  it('rocm-smi JSON, 2 × MI300X', async () => {
    const hw = await detectHardware({
      local: true,
      exec: fakeExec({ 'rocm-smi': rec('rocm-smi-mi300x.json') }),
    });
    expect(hw).toMatchObject({
      gpuName: 'AMD Instinct MI300X',
      gpuCount: 2,
      gpuMemoryGb: 192,
      gpuMemoryGbTotal: 384,
      gpuDriver: '6.8.5',
      source: 'rocm-smi',
    });
    expect(parseRocmSmi(rec('rocm-smi-mi300x.json')).map((g) => g.powerW)).toEqual([142, 138]);
    expect(await readGpuPowerW('rocm-smi', fakeExec({ 'rocm-smi': rec('rocm-smi-mi300x.json') }))).toBe(280);
  });

  it('no tools installed (this CI machine) is fine: the local server runs on the CPU', async () => {
    const hw = await detectHardware({ local: true, exec: fakeExec({}) });
    expect(hw.source).toBe('os');
    expect(hw.gpuName).toBeUndefined();
    expect(hw.cpuCores).toBeGreaterThan(0);
    expect(parseRocmSmi('not json')).toEqual([]);
  });

  it('the real tools, if absent, do not throw', async () => {
    await expect(detectHardware({ local: true })).resolves.toHaveProperty('source');
  });

  it('a remote server: local GPUs are not reported; flags fill in', async () => {
    const exec = fakeExec({ 'nvidia-smi': rec('nvidia-smi-h200x4.csv') });
    const remote = await detectHardware({ local: false, exec });
    expect(remote.gpuName).toBeUndefined();
    const flagged = await detectHardware({
      local: false,
      exec,
      overrides: { gpuName: 'H200', gpuCount: 8, gpuMemoryGb: 141 },
    });
    expect(flagged).toMatchObject({
      gpuName: 'H200',
      gpuCount: 8,
      gpuMemoryGb: 141,
      gpuMemoryGbTotal: 1128,
      source: 'flags',
      type: 'Discrete GPU',
    });
  });

  it('overrides win over detection and keep the source', () => {
    const hw = applyHardwareOverrides(
      { gpuName: 'H200', gpuCount: 4, gpuMemoryGb: 140, gpuMemoryGbTotal: 560, source: 'nvidia-smi' },
      { gpuCount: 2 },
    );
    expect(hw).toMatchObject({ gpuCount: 2, gpuMemoryGbTotal: 280, source: 'nvidia-smi' });
  });

  it('rounds memory as the seeds print it', () => {
    expect(memoryGb(97887)).toBe(96);
    expect(memoryGb(143771)).toBe(140);
    expect(memoryGb(8192)).toBe(8);
    expect(memoryGb(4096 + 512)).toBe(4.5);
  });

  it('total power over GPUs from nvidia-smi', async () => {
    const exec = fakeExec({ 'nvidia-smi': '100.5\n200.25\n[N/A]\n' });
    expect(await readGpuPowerW('nvidia-smi', exec)).toBeCloseTo(300.75, 9);
    expect(await readGpuPowerW('none', exec)).toBeUndefined();
  });
});
