import { afterEach, describe, expect, it } from 'vitest';
import { metadata, reportTitle } from '../../src/report/model.js';
import { renderReport } from '../../src/report/index.js';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { detectHardware, type CpuFacts, type Exec } from '../../src/target/hardware.js';
import { buildEngine } from '../../src/target/metadata.js';
import { llamacpp } from '../../src/target/engines/llamacpp.js';
import { formatProbe } from '../../src/target/probe-format.js';
import type { TargetInfo } from '../../src/target/types.js';
import { runCliInProcess } from '../helpers/cli.js';
import { syntheticResult } from '../report/synthetic.js';

// A local server with no GPU (llama.cpp on CPU) gets the CPU's model, cores and memory.
const noTools: Exec = () => Promise.resolve(undefined);
const epyc: CpuFacts = {
  model: 'AMD EPYC 9654  96-Core Processor   ',
  cores: 192,
  memoryBytes: 755 * 1024 ** 3,
};

describe('CPU hardware', () => {
  it('a local server where no GPU tool answers: CPU model, logical cores and memory, backend cpu', async () => {
    const hw = await detectHardware({ local: true, exec: noTools, cpu: () => epyc });
    expect(hw).toEqual({
      os: process.platform,
      type: 'CPU (no GPU found)',
      cpu: 'AMD EPYC 9654 96-Core Processor',
      cpuCores: 192,
      systemMemoryGb: 755,
      source: 'os',
    });
    expect(
      buildEngine(llamacpp, { metricsAvailable: false }, {}, { forced: false, hardware: hw }).backend,
    ).toBe('cpu');
  });

  it('a remote server: nothing of this machine; GPUs given by flags on a CPU box are GPUs', async () => {
    const remote = await detectHardware({ local: false, exec: noTools, cpu: () => epyc });
    expect(remote).toEqual({ os: undefined, source: 'none' });
    const flagged = await detectHardware({
      local: true,
      exec: noTools,
      cpu: () => epyc,
      overrides: { gpuName: 'L40S', gpuCount: 2, gpuMemoryGb: 48 },
    });
    expect(flagged).toMatchObject({
      type: 'Discrete GPU',
      gpuName: 'L40S',
      gpuMemoryGbTotal: 96,
      source: 'flags',
    });
  });

  it('probe and every report show it', async () => {
    const hardware = await detectHardware({ local: true, exec: noTools, cpu: () => epyc });
    const info = {
      engine: { name: 'llamacpp' },
      models: ['m'],
      model: 'm',
      hardware,
    } as unknown as TargetInfo;
    const probeText = formatProbe(
      { ...info, metricsAvailable: false, extensions: llamacpp.extensions },
      'http://127.0.0.1:8080/v1',
    );
    expect(probeText).toMatch(
      /Hardware\s+CPU: AMD EPYC 9654 96-Core Processor, 192 logical cores, 755 GB memory/,
    );
    const r = { ...syntheticResult(), hardware, title: undefined };
    const rows = Object.fromEntries(metadata(r).find((s) => s.name === 'Hardware')!.rows);
    expect(rows).toMatchObject({
      CPU: 'AMD EPYC 9654 96-Core Processor',
      'CPU cores': '192',
      Memory: '755 GB',
    });
    expect(reportTitle(r)).toBe(`${r.target.model} on AMD EPYC 9654 96-Core Processor (CPU)`);
    for (const fmt of ['md', 'txt', 'html'] as const) expect(renderReport(r, fmt)).toContain('192');
  });
});

describe('probe against the sim applies the run\'s "this is the sim, not this machine" rule', () => {
  let sim: SimHandle | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('no CPU or GPU of this machine, no backend derived from it', async () => {
    sim = await startSim({ profile: 'tiny', flavor: 'llamacpp' });
    const r = await runCliInProcess(['probe', '--base-url', sim.baseUrl, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { hardware: Record<string, unknown>; engine: Record<string, unknown> };
    expect(j.hardware).toEqual({
      type: 'Simulated (sim profile "tiny", no real GPU)',
      gpuName: 'Simulated GPU',
      gpuCount: 1,
      gpuMemoryGb: 24,
      gpuMemoryGbTotal: 24,
      source: 'sim',
    });
    expect(j.engine.backend).toBeUndefined();
    const text = await runCliInProcess(['probe', '--base-url', sim.baseUrl]);
    expect(text.stdout).toMatch(/Hardware\s+1 × Simulated GPU 24 GB \(24 GB total\) \[sim\]/);
  });
});
