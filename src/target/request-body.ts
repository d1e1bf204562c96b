import { checkOptions, keysOf } from '../option-keys.js';
import { adapterByName } from './engines/index.js';
import type { TargetInfo } from './types.js';

export interface RequestBodyOptions {
  api: 'chat' | 'completions';
  prompt: string;
  /** Chat only: a conversation (system, user, assistant, ...) sent instead of one user message holding `prompt`
   * (the multi-turn workload, docs/workloads.md). */
  messages?: ReadonlyArray<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  maxOutput: number;
  ignoreEos: boolean;
  sampling?: Record<string, unknown>;
  minTokens?: number;
}

const KEYS = keysOf<RequestBodyOptions>({
  api: true,
  prompt: true,
  messages: true,
  maxOutput: true,
  ignoreEos: true,
  sampling: true,
  minTokens: true,
});

// One streaming request body with only the extensions this engine accepts (TensorRT-LLM rejects unknown
// fields with a 400) and always an explicit output cap (completions default to 16 tokens on vLLM/SGLang).
export function buildRequestBody(
  info: Pick<TargetInfo, 'engine' | 'model' | 'extensions'>,
  o: RequestBodyOptions,
): Record<string, unknown> {
  checkOptions('buildRequestBody', o, KEYS, { maxTokens: 'maxOutput' });
  const body: Record<string, unknown> = { model: info.model };
  if (o.api === 'chat') body.messages = o.messages ? [...o.messages] : [{ role: 'user', content: o.prompt }];
  else body.prompt = o.prompt;
  body.stream = true;
  for (const field of outputCapFields(info, o.api)) body[field] = o.maxOutput;
  const ext = info.extensions;
  if (ext.streamOptions) {
    body.stream_options = ext.continuousUsage
      ? { include_usage: true, continuous_usage_stats: true }
      : { include_usage: true };
  }
  if (o.ignoreEos && ext.ignoreEos) body.ignore_eos = true;
  if (o.minTokens !== undefined && o.minTokens > 0 && ext.minTokens)
    body.min_tokens = Math.min(o.minTokens, o.maxOutput);
  for (const [k, v] of Object.entries(o.sampling ?? {})) {
    if (v !== undefined && !(k in body)) body[k] = v;
  }
  return body;
}

function outputCapFields(
  info: Pick<TargetInfo, 'engine' | 'extensions'>,
  api: 'chat' | 'completions',
): string[] {
  let fields: string[];
  try {
    fields = adapterByName(info.engine.name).outputCapFields(api);
  } catch {
    fields = ['max_tokens']; // sim-* or imported names: the field every server reads
  }
  if (!info.extensions.maxCompletionTokens) fields = fields.filter((f) => f !== 'max_completion_tokens');
  return fields.length ? fields : ['max_tokens'];
}
