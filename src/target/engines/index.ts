import { BenchError } from '../../errors.js';
import type { EngineAdapter, EngineName } from '../types.js';
import { ENGINE_NAMES } from '../types.js';
import { generic } from './generic.js';
import { vllm } from './vllm.js';

// Detection order: engines whose fingerprint endpoints are unique first; vLLM's /version also exists on
// TensorRT-LLM, so TRT-LLM is asked before vLLM; generic last.
export const ADAPTERS: readonly EngineAdapter[] = [vllm, generic];

const ALIASES: Record<string, EngineName> = {
  'llama.cpp': 'llamacpp',
  'llama-cpp': 'llamacpp',
  'llama-server': 'llamacpp',
  'tensorrt-llm': 'trtllm',
  tensorrt_llm: 'trtllm',
  'trt-llm': 'trtllm',
  openai: 'generic',
};

export function adapterByName(name: string): EngineAdapter {
  const key = name.trim().toLowerCase();
  const canonical = (ALIASES[key] ?? key) as EngineName;
  const found = ADAPTERS.find((a) => a.name === canonical);
  if (!found) {
    throw new BenchError('USAGE', `unknown engine "${name}".`, {
      hint: `Use one of: ${ENGINE_NAMES.join(', ')}.`,
    });
  }
  return found;
}
