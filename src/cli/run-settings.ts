import type { RunSettings } from '../bench/settings.js';
import type { Options } from '../config/options.js';
import { samplingOf } from '../config/stored.js';

// Resolved options (flags over YAML over defaults) -> the runner's settings; only given sampling fields are sent.
export function toRunSettings(o: Options<'run'>, apiKey: string | undefined): RunSettings {
  const sampling = samplingOf(o);
  const hardware = {
    ...(o.gpuName ? { gpuName: o.gpuName } : {}),
    ...(o.gpuCount ? { gpuCount: o.gpuCount } : {}),
    ...(o.gpuMemoryGb ? { gpuMemoryGb: o.gpuMemoryGb } : {}),
  };
  const s: RunSettings = {
    api: o.api,
    maxOutput: o.maxOutput,
    duration: o.duration,
    prefillRepeats: o.prefillRepeats,
    rampTimeout: o.rampTimeout,
    settleTimeout: o.settleTimeout,
    settlePause: o.settlePause,
    metricsInterval: o.metricsInterval,
    ignoreEos: o.ignoreEos,
    sampling,
    seed: o.seed,
    out: o.out,
  };
  const opt = <K extends keyof RunSettings>(k: K, v: RunSettings[K] | undefined) => {
    if (v !== undefined) s[k] = v;
  };
  opt('baseUrl', o.baseUrl);
  opt('apiKey', apiKey);
  opt('model', o.model);
  opt('engine', o.engine);
  opt('contexts', o.contexts);
  opt('prefillContexts', o.prefillContexts);
  opt('concurrency', o.concurrency);
  opt('maxModelLen', o.maxModelLen);
  opt('kvCapacity', o.kvCapacity);
  opt('runId', o.runId);
  opt('title', o.title);
  opt('launchCommand', o.launchCommand);
  opt('revision', o.revision);
  opt('quantization', o.quantization);
  opt('workers', o.workers);
  if (Object.keys(hardware).length) s.hardware = hardware;
  const engineFlags = {
    ...(o.engineVersion ? { engineVersion: o.engineVersion } : {}),
    ...(o.engineCommit ? { engineCommit: o.engineCommit } : {}),
    ...(o.backend ? { backend: o.backend } : {}),
    ...(o.build ? { build: o.build } : {}),
    ...(o.repository ? { repository: o.repository } : {}),
  };
  if (Object.keys(engineFlags).length) s.engineFlags = engineFlags;
  // --resume DIR, or --resume alone ('') with --out pointing at the run folder.
  if (o.resume !== undefined) s.resume = o.resume === '' ? o.out : o.resume;
  return s;
}
