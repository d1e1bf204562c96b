import type { Hardware } from '../results/schema.js';
import { applyHardwareOverrides, type HardwareOverrides } from '../target/hardware.js';
import { isSimEngine } from '../target/sim-target.js';
import type { SimProfileHardware, TargetInfo } from '../target/types.js';

// A sim runs on this machine's CPU, so this machine's GPUs (and their power) say nothing about what it simulates.
export { isSimEngine };

export const simTypeLabel = (profileName?: string): string =>
  profileName ? `Simulated (sim profile "${profileName}", no real GPU)` : 'Simulated (no real GPU)';

// The hardware a sim profile describes, labelled as simulated (`demo` passes this to the run; `run` and `quick`
// get it from the sim's probe).
export function simProfileHardware(profile: SimProfileHardware): Hardware {
  const h = profile.hardware;
  const hw: Hardware = { type: simTypeLabel(profile.name), source: 'sim' };
  if (h.gpuName !== undefined) hw.gpuName = h.gpuName;
  if (h.gpuCount !== undefined) hw.gpuCount = h.gpuCount;
  if (h.gpuMemoryGb !== undefined) hw.gpuMemoryGb = h.gpuMemoryGb;
  if (h.gpuMemoryGb !== undefined && h.gpuCount !== undefined)
    hw.gpuMemoryGbTotal = h.gpuMemoryGb * h.gpuCount;
  return hw;
}

// A target whose probe says it is the sim never keeps local GPU or CPU facts (`run`, `quick` and `probe` alike):
// the hardware its profile describes where the sim served it, and what the user stated (--gpu-name...) over it, on
// a hardware block marked 'sim'. A backend derived from the local GPUs goes too.
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
  const base: Hardware = info.simProfile
    ? simProfileHardware(info.simProfile)
    : { type: simTypeLabel(), source: 'sim' };
  const hardware = applyHardwareOverrides(base, overrides);
  const engine = { ...info.engine };
  const local = ['nvidia-smi', 'rocm-smi', 'os'].includes(info.hardware.source ?? '');
  if (local && backendFlag === undefined && ['cuda', 'rocm', 'cpu'].includes(engine.backend ?? ''))
    delete engine.backend;
  return { ...info, engine, hardware };
}
