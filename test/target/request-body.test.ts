import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/target/engines/index.js';
import { buildRequestBody } from '../../src/target/request-body.js';
import type { EngineName, TargetInfo } from '../../src/target/types.js';

function info(name: EngineName): Pick<TargetInfo, 'engine' | 'model' | 'extensions'> {
  const a = ADAPTERS.find((x) => x.name === name);
  if (!a) throw new Error(`no adapter ${name}`);
  return { engine: { name }, model: 'm', extensions: a.extensions };
}

const base = { prompt: 'hello', maxOutput: 128, ignoreEos: true, sampling: { temperature: 0 } };

describe('buildRequestBody', () => {
  it('vLLM chat: both output caps, ignore_eos, continuous usage', () => {
    expect(buildRequestBody(info('vllm'), { ...base, api: 'chat', minTokens: 128 })).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
      max_tokens: 128,
      max_completion_tokens: 128,
      stream_options: { include_usage: true, continuous_usage_stats: true },
      ignore_eos: true,
      min_tokens: 128,
      temperature: 0,
    });
  });

  it('vLLM completions: explicit max_tokens (the endpoint defaults to 16)', () => {
    const b = buildRequestBody(info('vllm'), { ...base, api: 'completions' });
    expect(b.prompt).toBe('hello');
    expect(b.max_tokens).toBe(128);
    expect(b).not.toHaveProperty('max_completion_tokens');
    expect(b).not.toHaveProperty('min_tokens');
  });

  it('a conversation goes as its messages on the chat API; the completions API sends the prompt text', () => {
    const messages = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: ' hello' },
      { role: 'user', content: 'more' },
    ] as const;
    const chat = buildRequestBody(info('vllm'), { ...base, api: 'chat', messages });
    expect(chat.messages).toEqual(messages);
    expect(chat.messages).not.toBe(messages); // a copy: the body never aliases the caller's history
    expect(chat).not.toHaveProperty('prompt');
    const completions = buildRequestBody(info('vllm'), { ...base, api: 'completions', messages });
    expect([completions.prompt, completions.messages]).toEqual(['hello', undefined]);
  });

  it('generic: only standard OpenAI fields', () => {
    expect(buildRequestBody(info('generic'), { ...base, api: 'chat', minTokens: 5 })).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
      max_tokens: 128,
      stream_options: { include_usage: true },
      temperature: 0,
    });
  });

  it('sampling never overrides the fields the tool owns', () => {
    const b = buildRequestBody(info('vllm'), {
      ...base,
      api: 'chat',
      sampling: { stream: false, max_tokens: 1, top_p: 0.9 },
    });
    expect(b.stream).toBe(true);
    expect(b.max_tokens).toBe(128);
    expect(b.top_p).toBe(0.9);
  });

  it('unknown engine names (sim-*, imported) fall back to max_tokens', () => {
    const b = buildRequestBody(
      { engine: { name: 'sim-vllm' }, model: 'm', extensions: info('vllm').extensions },
      { ...base, api: 'chat' },
    );
    expect(b.max_tokens).toBe(128);
  });
});
