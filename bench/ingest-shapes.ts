// Token events as each engine writes them (docs/engines.md, the sim's flavors): field order, role on every
// chunk (TGI, Ollama), reasoning field names, TensorRT-LLM's per-chunk average and trailing space, and
// cumulative usage on every chunk when the request asked for continuous usage stats. bench:ingest's
// emitter writes these so each client parses the shapes real servers send.
export const ENGINES = ['vllm', 'sglang', 'llamacpp', 'tgi', 'ollama', 'trtllm'] as const;
export type Engine = (typeof ENGINES)[number];

export interface ShapeStream {
  engine: Engine;
  api: 'chat' | 'completions';
  id: string;
  continuous: boolean;
}

const REASONING: Record<Engine, string> = {
  vllm: 'reasoning',
  sglang: 'reasoning_content',
  llamacpp: 'reasoning_content',
  tgi: 'content', // TGI has no reasoning parser: the text stays in content
  ollama: 'reasoning',
  trtllm: 'reasoning_content',
};
const PROMPT = 100;
const CREATED = 1764672000;

const usage = (sent: number) =>
  `{"prompt_tokens":${PROMPT},"total_tokens":${PROMPT + sent},"completion_tokens":${sent}}`;

/** One SSE event (with its `data: ` and blank line) carrying `text`; `sent` = tokens so far, this one included. */
export function tokenEvent(
  s: ShapeStream,
  text: string,
  reasoning: boolean,
  sent: number,
  finish?: string,
): string {
  const t = JSON.stringify(text);
  const fr = finish ? `"${finish}"` : 'null';
  const field = reasoning ? REASONING[s.engine] : 'content';
  const object = s.api === 'chat' ? 'chat.completion.chunk' : 'text_completion';
  const u = s.continuous ? `,"usage":${usage(sent)}` : '';
  const holder = (role: boolean) =>
    s.api === 'chat' ? `"delta":{${role ? '"role":"assistant",' : ''}"${field}":${t}}` : `"text":${t}`;
  switch (s.engine) {
    case 'llamacpp':
      return `data: {"choices":[{"finish_reason":${fr},"index":0,${holder(false)}}],"created":${CREATED},"id":"chatcmpl-${s.id}","model":"bench-model","system_fingerprint":"b7000-bench","object":"${object}"${u}}\n\n`;
    case 'tgi':
      return `data: {"object":"${object}","id":"","created":${CREATED},"model":"bench-model","system_fingerprint":"3.0.1-native","choices":[{"index":0,${holder(true)},"logprobs":null,"finish_reason":${fr}}],"usage":null}\n\n`;
    case 'ollama':
      return `data: {"id":"chatcmpl-${s.id}","object":"${object}","created":${CREATED},"model":"bench-model","system_fingerprint":"fp_ollama","choices":[{"index":0,${holder(true)},"finish_reason":${fr}}]}\n\n`;
    case 'trtllm':
      return `data: {"id":"chatcmpl-${s.id}","object":"${object}","created":${CREATED},"model":"bench-model","choices":[{"index":0,${holder(false)},"logprobs":null,"finish_reason":${fr},"avg_decoded_tokens_per_iter":${(1 + (sent % 3) / 3).toFixed(3)}}]${u}} \n\n`;
    default:
      return `data: {"id":"chatcmpl-${s.id}","object":"${object}","created":${CREATED},"model":"bench-model","choices":[{"index":0,${holder(false)},"logprobs":null,"finish_reason":${fr}}]${u}}\n\n`;
  }
}

/** The first event of a chat stream (role only) and the closing events (usage, [DONE]). */
export function roleEvent(s: ShapeStream): string {
  if (s.api !== 'chat' || s.engine === 'tgi' || s.engine === 'ollama') return '';
  return `data: {"id":"chatcmpl-${s.id}","object":"chat.completion.chunk","created":${CREATED},"model":"bench-model","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n`;
}

export function closingEvents(s: ShapeStream, sent: number): string {
  return `data: {"id":"chatcmpl-${s.id}","object":"chat.completion.chunk","created":${CREATED},"model":"bench-model","choices":[],"usage":${usage(sent)}}\n\ndata: [DONE]\n\n`;
}
