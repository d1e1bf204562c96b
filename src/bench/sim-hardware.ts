import type { Engine, Hardware } from '../results/schema.js';
import { applyHardwareOverrides, type HardwareOverrides } from '../target/hardware.js';
import type { TargetInfo } from '../target/types.js';

// The simulated engine reports versions ending in "-sim" (profile engine.version; docs/sim.md). A sim runs on
// this machine's CPU, so this machine's GPUs (and their power) say nothing about what it simulates.
export const isSimEngine = (engine: Engine): boolean => /-sim$/i.test(engine.version ?? '');

export const simTypeLabel = (profileName?: string): string =>
  profileName ? `Simulated (sim profile "${profileName}", no real GPU)` : 'Simulated (no real GPU)';

// The hardware a sim profile describes, labelled as simulated (`demo` passes this to the run).
export function simProfileHardware(profile: {
  name: string;
  hardware: { gpuName?: string; gpuCount?: number; gpuMemoryGb?: number };
}): Hardware {
  const h = profile.hardware;
  const hw: Hardware = { type: simTypeLabel(profile.name), source: 'sim' };
  if (h.gpuName !== undefined) hw.gpuName = h.gpuName;
  if (h.gpuCount !== undefined) hw.gpuCount = h.gpuCount;
  if (h.gpuMemoryGb !== undefined) hw.gpuMemoryGb = h.gpuMemoryGb;
  if (h.gpuMemoryGb !== undefined && h.gpuCount !== undefined)
    hw.gpuMemoryGbTotal = h.gpuMemoryGb * h.gpuCount;
  return hw;
}

// A target whose probe says it is the sim never keeps local GPU or CPU facts (`run` and `probe` alike): only what the user stated
// (--gpu-name...) on a hardware block marked 'sim'. A backend derived from the local GPUs goes too.
export function withoutLocalHardwareForSim(
  info: TargetInfo,
  given: HardwareOverrides | Hardware | undefined,
  backendFlag: string | undefined,
): TargetInfo {
  if (!isSimEngine(info.engine) || info.hardware.source === 'sim') return info;
  const overrides: HardwareOverrides = given
    ? {
        ...(given.gpuName !== undefined ? { gpuName: given.gpuName } : {}),
        ...(given.gpuCount !== undefined ? { gpuCount: given.gpuCount } : {}),
        ...(given.gpuMemoryGb !== undefined ? { gpuMemoryGb: given.gpuMemoryGb } : {}),
      }
    : {};
  const hardware = applyHardwareOverrides({ type: simTypeLabel(), source: 'sim' }, overrides);
  const engine = { ...info.engine };
  const local = ['nvidia-smi', 'rocm-smi', 'os'].includes(info.hardware.source ?? '');
  if (local && backendFlag === undefined && ['cuda', 'rocm', 'cpu'].includes(engine.backend ?? ''))
    delete engine.backend;
  return { ...info, engine, hardware };
}
