// Full interpretation of one parsed SSE payload: text deltas of every choice, finish reason, usage,
// llama.cpp timings and every error shape docs/engines.md lists (vLLM/llama.cpp/Ollama `{error:{message}}`,
// SGLang/TRT-LLM flat `{object:"error",message}`, TGI `{error:"..."}` and `{error:{message,http_status_code}}`).
import { errorOf, type ErrorBody } from '../../failures/error-body.js';

export interface UsageInfo {
  completionTokens?: number;
  promptTokens?: number;
  cachedTokens?: number;
  reasoningTokens?: number;
}

export interface FullChunk {
  text: string;
  reasoningChars: number;
  finishReason?: string;
  usage?: UsageInfo;
  predictedTokens?: number; // llama.cpp timings.predicted_n (a count when usage is absent)
  cacheN?: number; // llama.cpp timings.cache_n
  error?: ErrorBody;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function fullChunk(o: unknown): FullChunk {
  const out: FullChunk = { text: '', reasoningChars: 0 };
  if (!isObj(o)) return out;
  const error = errorOf(o);
  if (error) out.error = error;
  const choices = o.choices;
  if (Array.isArray(choices)) {
    for (const c of choices) {
      if (!isObj(c)) continue;
      const delta = isObj(c.delta) ? c.delta : isObj(c.message) ? c.message : undefined;
      if (delta) {
        for (const key of ['reasoning', 'reasoning_content'] as const) {
          const r = str(delta[key]);
          if (r) {
            out.text += r;
            out.reasoningChars += r.length;
            break; // vLLM may send both names for one delta during the alias period
          }
        }
        const content = str(delta.content);
        if (content) out.text += content;
      }
      const text = str(c.text);
      if (text) out.text += text;
      const fr = str(c.finish_reason);
      if (fr) out.finishReason = fr;
    }
  }
  const u = o.usage;
  if (isObj(u)) {
    const usage: UsageInfo = {};
    const ct = num(u.completion_tokens);
    if (ct !== undefined) usage.completionTokens = ct;
    const pt = num(u.prompt_tokens);
    if (pt !== undefined) usage.promptTokens = pt;
    const ptd = u.prompt_tokens_details;
    if (isObj(ptd) && num(ptd.cached_tokens) !== undefined) usage.cachedTokens = num(ptd.cached_tokens);
    const ctd = u.completion_tokens_details;
    const rt = (isObj(ctd) ? num(ctd.reasoning_tokens) : undefined) ?? num(u.reasoning_tokens);
    if (rt !== undefined) usage.reasoningTokens = rt;
    out.usage = usage;
  }
  const timings = o.timings;
  if (isObj(timings)) {
    const p = num(timings.predicted_n);
    if (p !== undefined) out.predictedTokens = p;
    const c = num(timings.cache_n);
    if (c !== undefined) out.cacheN = c;
  }
  return out;
}
