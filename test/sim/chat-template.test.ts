import { describe, expect, it } from 'vitest';
import { commonPrefix, countChatTokens, countTokens, renderChat, tokenIds } from '../../src/sim/tokenizer.js';
import { chatBody, harness, jsonEvents } from './handler-helpers.js';

const commonPrefixTokens = (a: string, b: string) => commonPrefix(tokenIds(a), tokenIds(b));

const ask = (content: string) => [{ role: 'user', content }];
const A = 'alfa told a long tale of the sea and ship'; // 10 tokens of up to 4 characters
const B = 'omeg told a long tale of the sea and ship';

describe('chat template tokens', () => {
  it('one message costs 15 template tokens on top of its content; the rendered text counts exactly', () => {
    expect(countTokens(A)).toBe(10);
    expect(countChatTokens(ask(A))).toBe(25);
    expect(countTokens(renderChat(ask(A)))).toBe(25);
    const two = [...ask(A), { role: 'assistant', content: B }, ...ask(A)];
    expect(countChatTokens(two)).toBe(10 + 3 * (3 + 10) + 2);
    expect(countChatTokens(ask(A), { startTokens: 0, perMessageTokens: 2, generationPromptTokens: 1 })).toBe(
      13,
    );
  });

  it('vLLM: usage.prompt_tokens includes the template; /tokenize with messages agrees, with the content alone it does not', () => {
    const h = harness({ overrides: { reasoningTokens: 0 } });
    const r = JSON.parse(
      h.call('POST', '/v1/chat/completions', chatBody({ messages: ask(A), stream: false })).body,
    );
    expect(r.usage.prompt_tokens).toBe(25);
    expect(JSON.parse(h.call('POST', '/tokenize', { messages: ask(A) }).body).count).toBe(25);
    expect(JSON.parse(h.call('POST', '/tokenize', { prompt: A }).body).count).toBe(10);
  });

  it('SGLang: /v1/tokenize with messages counts the rendered prompt', () => {
    const h = harness({ flavor: 'sglang' });
    expect(JSON.parse(h.call('POST', '/v1/tokenize', { messages: ask(A) }).body).count).toBe(25);
  });

  it('llama.cpp: /apply-template then /tokenize gives the prompt count the chat request reports', () => {
    const h = harness({ flavor: 'llamacpp', overrides: { reasoningTokens: 0 } });
    const prompt = JSON.parse(h.call('POST', '/apply-template', { messages: ask(A) }).body).prompt as string;
    expect(prompt).toContain(A);
    const tokens = JSON.parse(
      h.call('POST', '/tokenize', { content: prompt, add_special: true }).body,
    ).tokens;
    const w = h.call(
      'POST',
      '/v1/chat/completions',
      chatBody({ messages: ask(A), stream_options: { include_usage: true } }),
    );
    expect(jsonEvents(w.body).at(-1)!.usage.prompt_tokens).toBe(tokens.length);
    expect(tokens.length).toBe(25);
    expect(h.call('POST', '/apply-template', {}).status).toBe(400);
  });

  it("llama.cpp: a cold prompt hits the template's common start in the prompt cache (timings.cache_n)", () => {
    const h = harness({ flavor: 'llamacpp', overrides: { reasoningTokens: 0 } });
    const first = jsonEvents(h.call('POST', '/v1/chat/completions', chatBody({ messages: ask(A) })).body);
    expect(first.at(-1)!.timings).toMatchObject({ cache_n: 0, prompt_n: 25, predicted_n: 12 });
    const second = jsonEvents(h.call('POST', '/v1/chat/completions', chatBody({ messages: ask(B) })).body);
    // start (10) + the user marker (2) are shared; the content differs from its first token on.
    expect(second.at(-1)!.timings).toMatchObject({ cache_n: 12, prompt_n: 13 });
    expect(h.ctx.truth.all()[1]!.cachedTokens).toBe(12);
  });

  it('vLLM: the 16-token blocks of its prefix cache cannot hold a 12-token common start', () => {
    const h = harness({ overrides: { promptTokensDetails: true, reasoningTokens: 0 } });
    h.call('POST', '/v1/chat/completions', chatBody({ messages: ask(A) }));
    const r = JSON.parse(
      h.call('POST', '/v1/chat/completions', chatBody({ messages: ask(B), stream: false })).body,
    );
    expect(r.usage.prompt_tokens_details.cached_tokens).toBe(0);
  });
});

describe('token ids', () => {
  it('one id per counted token: its characters and whether whitespace comes before it, not which', () => {
    for (const t of ['', ' ', 'a', 'abcdefgh ij ', '  lead', 'x\n\ny\t', renderChat(ask(A))])
      expect(tokenIds(t).length).toBe(countTokens(t));
    expect(Array.from(tokenIds('a\n the'))).toEqual(Array.from(tokenIds('a the')));
    expect(tokenIds(' the')[0]).not.toBe(tokenIds('the')[0]);
    expect(tokenIds('abcdefgh')[1]).toBe(tokenIds('efgh')[0]); // a 4-character run then a new token
  });
});

describe('common prefix in tokens (llama.cpp slot cache)', () => {
  it('counts the whole tokens two prompts share, never the one they differ in', () => {
    expect(commonPrefixTokens('aa bb cc dd', 'aa bb cx dd')).toBe(2);
    expect(commonPrefixTokens('abcdefgh ij', 'abcdefgx ij')).toBe(1); // "abcd" then "efgh" differs
    expect(commonPrefixTokens('same text', 'same text')).toBe(2);
    expect(commonPrefixTokens('x', 'y')).toBe(0);
    expect(commonPrefixTokens(renderChat(ask(A)), renderChat(ask(B)))).toBe(12);
  });
});

describe('reasoning tokens in usage', () => {
  it('vLLM with a reasoning parser: completion_tokens_details.reasoning_tokens in the final usage only', () => {
    const h = harness({ overrides: { reasoningTokens: 8 } });
    const w = h.call(
      'POST',
      '/v1/chat/completions',
      chatBody({ stream_options: { include_usage: true, continuous_usage_stats: true } }),
    );
    const js = jsonEvents(w.body);
    expect(js.at(-1)!.usage).toMatchObject({
      completion_tokens: 12,
      completion_tokens_details: { reasoning_tokens: 8 },
    });
    expect(js.slice(0, -1).every((e) => e.usage?.completion_tokens_details === undefined)).toBe(true);
    const ns = JSON.parse(h.call('POST', '/v1/chat/completions', chatBody({ stream: false })).body);
    expect(ns.usage.completion_tokens_details).toEqual({ reasoning_tokens: 8 });
  });

  it('no reasoning parser, or another flavor: no completion_tokens_details', () => {
    const plain = harness({ overrides: { reasoningTokens: 0 } });
    const a = JSON.parse(plain.call('POST', '/v1/chat/completions', chatBody({ stream: false })).body);
    expect(a.usage.completion_tokens_details).toBeUndefined();
    const sg = harness({ flavor: 'sglang' });
    const b = JSON.parse(sg.call('POST', '/v1/chat/completions', chatBody({ stream: false })).body);
    expect(b.usage.completion_tokens_details).toBeUndefined();
    expect(b.usage.reasoning_tokens).toBe(8);
  });
});
