// One cheap request (`max_tokens: 1`, not streamed) whose usage.prompt_tokens is the server's count of the whole
// prompt it saw, chat template included: the reference every other way of sizing a prompt is checked against.
import { postJson } from '../client/http.js';

export interface ProbeTarget {
  baseUrl: string;
  apiKey?: string;
  model: string;
  api: 'chat' | 'completions';
  probeTimeoutMs?: number;
}

export async function probePromptTokens(t: ProbeTarget, text: string): Promise<number | undefined> {
  const body: Record<string, unknown> = { model: t.model, max_tokens: 1, stream: false };
  if (t.api === 'chat') body.messages = [{ role: 'user', content: text }];
  else body.prompt = text;
  const r = await postJson<{ usage?: { prompt_tokens?: unknown } }>(
    t.baseUrl,
    t.api === 'chat' ? '/chat/completions' : '/completions',
    body,
    { apiKey: t.apiKey, timeoutMs: t.probeTimeoutMs ?? 120_000 },
  );
  const n = r.ok ? r.body.usage?.prompt_tokens : undefined;
  return typeof n === 'number' && n > 0 ? n : undefined;
}
