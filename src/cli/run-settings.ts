import type { RunSettings } from '../bench/settings.js';
import type { Options } from '../config/options.js';
import { samplingOf } from '../config/stored.js';

type RunOptions = Options<'run'>;
// apiKey comes from the flag, the environment or a file (resolveApiKey); resume is turned into a folder below.
type Shared = Exclude<keyof RunSettings & keyof RunOptions, 'apiKey' | 'resume'>;

// The options the runner takes as they are (same name, same type). Checked both ways at compile time: an option
// added to the table and to RunSettings but not here, or listed here but missing on either side, fails to build.
const SAME = [
  'baseUrl',
  'model',
  'api',
  'engine',
  'contexts',
  'prefillContexts',
  'concurrency',
  'maxOutput',
  'duration',
  'prefillRepeats',
  'repeats',
  'rampTimeout',
  'settleTimeout',
  'settlePause',
  'metricsInterval',
  'maxModelLen',
  'kvCapacity',
  'ignoreEos',
  'seed',
  'workers',
  'httpClient',
  'verifyCapacity',
  'slo',
  'out',
  'runId',
  'title',
  'launchCommand',
  'revision',
  'quantization',
] as const satisfies readonly Shared[];
const sameCoversShared: Shared extends (typeof SAME)[number] ? true : false = true;
void sameCoversShared;

const defined = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

function same(o: RunOptions): Pick<RunOptions, Shared> {
  const out: Partial<Pick<RunOptions, Shared>> = {};
  const copy = <K extends Shared>(k: K) => {
    if (o[k] !== undefined) out[k] = o[k];
  };
  SAME.forEach(copy);
  // The required ones have defaults in the table, so every key the type requires is there.
  return out as Pick<RunOptions, Shared>;
}

// Resolved options (flags over YAML over defaults) -> the runner's settings. The runner groups three kinds: the
// sampling fields sent (only those given), the hardware overrides and the engine facts.
export function toRunSettings(o: RunOptions, apiKey: string | undefined): RunSettings {
  const s: RunSettings = { ...same(o), sampling: samplingOf(o) };
  if (apiKey !== undefined) s.apiKey = apiKey;
  const hardware = defined({ gpuName: o.gpuName, gpuCount: o.gpuCount, gpuMemoryGb: o.gpuMemoryGb });
  if (Object.keys(hardware).length) s.hardware = hardware;
  const engineFlags = defined({
    engineVersion: o.engineVersion,
    engineCommit: o.engineCommit,
    backend: o.backend,
    build: o.build,
    repository: o.repository,
  });
  if (Object.keys(engineFlags).length) s.engineFlags = engineFlags;
  // --resume DIR, or --resume alone ('') with --out pointing at the run folder.
  if (o.resume !== undefined) s.resume = o.resume === '' ? o.out : o.resume;
  return s;
}
