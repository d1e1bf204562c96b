import { stringify } from 'yaml';
import { BenchError } from '../errors.js';
import { cliCommand } from '../invocation.js';
import type { Profile } from '../sim/profile-schema.js';
import { loadProfile } from '../sim/profiles.js';
import { contextLabel } from '../format/index.js';
import { TwinMeta, type Twin } from './twin.js';

// twin.yaml is a sim profile (so `sim --profile twin.yaml` serves it) whose `twin` block carries the fit.

export function twinYaml(t: Twin): string {
  const head = [
    `# Twin fitted by llm-inference-bench fit on ${t.meta.fittedFrom.join(', ')}`,
    `# (${t.meta.cells.length} decode cells, prefill at ${t.meta.prefillPoints.map(contextLabel).join(', ')}).`,
    '# A sim profile: `sim --profile this.yaml` serves it; `predict --twin this.yaml` predicts a matrix.',
  ];
  return head.join('\n') + '\n' + stringify(t.profile, { lineWidth: 0 });
}

export function loadTwin(path: string): { profile: Profile; meta: TwinMeta } {
  const profile = loadProfile(path);
  const meta = TwinMeta.safeParse(profile.twin);
  if (!meta.success)
    throw new BenchError('CONFIG_INVALID', `${path} is a sim profile but not a twin (it has no fit block).`, {
      hint: `Fit one from your runs first (\`${cliCommand('fit', '--help')}\`).`,
    });
  return { profile, meta: meta.data };
}
