import { z } from 'zod';
import type { Engine } from '../results/schema.js';
import type { ProbeContext, SimProfileHardware } from './types.js';

// The simulated engine reports versions ending in "-sim" (profile engine.version; docs/sim.md). It runs on this
// machine's CPU, so what it simulates is known only to it: it serves its profile's name and GPUs at GET
// /sim/hardware, which a probe reads so that `run` and `quick` against it record what `demo` records.
export const isSimEngine = (engine: Engine): boolean => /-sim$/i.test(engine.version ?? '');

const Served = z.object({
  profile: z.string().min(1),
  hardware: z.object({
    gpuName: z.string().optional(),
    gpuCount: z.number().int().positive().optional(),
    gpuMemoryGb: z.number().positive().optional(),
  }),
});

/** The sim's profile and its GPUs, as the sim serves them; undefined from a sim of an older version. */
export async function servedSimProfile(ctx: ProbeContext): Promise<SimProfileHardware | undefined> {
  const r = await ctx.get('/sim/hardware').catch(() => undefined);
  const p = r?.ok ? Served.safeParse(r.body) : undefined;
  return p?.success ? { name: p.data.profile, hardware: p.data.hardware } : undefined;
}
