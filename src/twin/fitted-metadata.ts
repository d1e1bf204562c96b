import { z } from 'zod';
import { Engine, Hardware, type RunResult } from '../results/schema.js';

// What a twin keeps of the results it was fitted on, so that its predictions name that server as the results
// did (docs/twin.md "What `predict` writes"): the engine, the hardware, the launch command and the model's
// revision, each field where the measured results agree (a field two of them give differently is left out).
export const FittedMetadata = z.object({
  engine: Engine.partial(),
  hardware: Hardware,
  launchCommand: z.string().optional(), // redacted, as every result keeps it
  revision: z.string().optional(),
});
export type FittedMetadata = z.infer<typeof FittedMetadata>;

function agreed<T extends object>(objs: readonly T[]): Partial<T> {
  const out: Partial<T> = {};
  for (const k of new Set(objs.flatMap((o) => Object.keys(o) as Array<keyof T>))) {
    const values = new Set(objs.map((o) => o[k]).filter((v) => v !== undefined));
    if (values.size === 1) out[k] = [...values][0];
  }
  return out;
}

export function fittedMetadata(results: readonly RunResult[]): FittedMetadata {
  const measured = results.filter((r) => !r.predicted);
  const { detectedBy: _how, ...engine } = agreed(measured.map((r) => r.engine));
  const run = agreed(measured.map((r) => ({ launchCommand: r.launchCommand, revision: r.target.revision })));
  return { engine, hardware: agreed(measured.map((r) => r.hardware)), ...run };
}
