import { BenchError } from '../../errors.js';
import { ENGINE_NAMES, engineNamed } from '../../engines/index.js';
import type { EngineAdapter } from '../types.js';
import { generic } from './generic.js';
import { llamacpp } from './llamacpp.js';
import { ollama } from './ollama.js';
import { sglang } from './sglang.js';
import { tgi } from './tgi.js';
import { trtllm } from './trtllm.js';
import { vllm } from './vllm.js';

// Detection: `owned_by` in /v1/models first (no extra request), then each fingerprint in this order, every
// one a GET that never generates (SGLang's and TRT-LLM's /health* submit a generation, so never those).
// TRT-LLM's /metrics is JSON, told apart before vLLM's Prometheus /metrics; generic answers last.
export const ADAPTERS: readonly EngineAdapter[] = [tgi, llamacpp, ollama, sglang, trtllm, vllm, generic];

export function adapterByName(name: string): EngineAdapter {
  const canonical = engineNamed(name);
  const found = canonical && ADAPTERS.find((a) => a.name === canonical);
  if (!found) {
    throw new BenchError('USAGE', `unknown engine "${name}".`, {
      hint: `Use one of: ${ENGINE_NAMES.join(', ')}.`,
    });
  }
  return found;
}
