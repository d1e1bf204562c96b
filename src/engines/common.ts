// Facts the OpenAI API fixes for every engine that follows it, declared once for the engine files.

// Where an OpenAI-compatible answer counts the prompt tokens served from the prefix cache (docs/engines.md "Prefix
// cache"): vLLM, SGLang and TensorRT-LLM write it, each under its own condition.
export const OPENAI_CACHED_TOKENS = 'usage.prompt_tokens_details.cached_tokens';
