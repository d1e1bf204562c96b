import type { Engine, Hardware } from '../results/schema.js';
import type { Discovery, EngineAdapter } from './types.js';

// Engine metadata flags: used where discovery has nothing; an explicit flag wins over discovery.
export interface EngineFlags {
  engineVersion?: string;
  engineCommit?: string;
  quantization?: string;
  backend?: string;
  build?: string;
  repository?: string;
}

export function buildEngine(
  adapter: EngineAdapter,
  d: Discovery,
  flags: EngineFlags,
  opts: { forced: boolean; detectedBy?: string; hardware?: Hardware; launchCommand?: string },
): Engine {
  const engine: Engine = { name: adapter.name };
  const set = (k: keyof Engine, v: string | undefined): void => {
    if (v !== undefined && v !== '') engine[k] = v;
  };
  set('version', flags.engineVersion ?? d.version);
  set('commit', flags.engineCommit ?? d.commit);
  set('build', flags.build ?? d.build);
  set('quantization', flags.quantization ?? d.quantization ?? quantizationFromCommand(opts.launchCommand));
  set('backend', flags.backend ?? d.backend ?? backendFromHardware(opts.hardware));
  set('repository', flags.repository ?? adapter.repository);
  set('detectedBy', opts.forced ? '--engine' : opts.detectedBy);
  return engine;
}

// `--quantization fp8` / `--quantization=fp8` (vLLM, SGLang) or `--quantize` (TGI) in the launch command.
export function quantizationFromCommand(cmd: string | undefined): string | undefined {
  const m = cmd ? /(?:^|\s)--(?:quantization|quantize)(?:=|\s+)['"]?([\w.-]+)/.exec(cmd) : null;
  return m?.[1];
}

function backendFromHardware(hw: Hardware | undefined): string | undefined {
  if (hw?.source === 'nvidia-smi') return 'cuda';
  if (hw?.source === 'rocm-smi') return 'rocm';
  if (hw?.source === 'os') return 'cpu'; // local, and no GPU tool answered
  return undefined;
}
