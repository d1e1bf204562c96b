import { describe, expect, it } from 'vitest';
import { countChatTokens } from '../../src/sim/tokenizer.js';
import { chatBody, events, harness, jsonEvents } from './handler-helpers.js';

describe('vllm flavor: streaming chat', () => {
  it('role chunk, reasoning then content, finish on the last content chunk, usage chunk, [DONE]', () => {
    const h = harness();
    const w = h.call('POST', '/v1/chat/completions', chatBody({ stream_options: { include_usage: true } }));
    expect(w.status).toBe(200);
    expect(w.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const ev = events(w.body);
    expect(ev.at(-1)).toBe('[DONE]');
    const js = jsonEvents(w.body);
    expect(js[0]!.choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(js[0]!.object).toBe('chat.completion.chunk');
    const usage = js.at(-1)!;
    expect(usage.choices).toEqual([]);
    const prompt = countChatTokens(chatBody().messages);
    expect(usage.usage).toEqual({
      prompt_tokens: prompt,
      total_tokens: prompt + 12,
      completion_tokens: 12,
      completion_tokens_details: { reasoning_tokens: 8 }, // tiny has 8 reasoning tokens: a reasoning parser
    });
    const finish = js.at(-2)!;
    expect(finish.choices[0].finish_reason).toBe('length');
    expect(finish.choices[0].stop_reason).toBeNull();
    expect(finish.system_fingerprint).toBeDefined();
    expect(finish.choices[0].delta.content.length).toBeGreaterThan(0);
    // system_fingerprint only on terminal chunks; reasoning (8 tokens in tiny) in delta.reasoning first.
    for (const e of js.slice(0, -2)) expect(e.system_fingerprint).toBeUndefined();
    const reasoning = js
      .filter((e) => e.choices[0]?.delta?.reasoning)
      .map((e) => e.choices[0].delta.reasoning)
      .join('');
    expect(reasoning.split(' ').filter(Boolean)).toHaveLength(8);
    const firstContent = js.findIndex((e) => e.choices[0]?.delta?.content);
    const lastReasoning = js.findLastIndex((e) => e.choices[0]?.delta?.reasoning);
    expect(lastReasoning).toBeLessThan(firstContent);
    // Truth: 12 tokens in token-bearing chunks, TTFT at the first token chunk, not the role chunk.
    const t = h.ctx.truth.all()[0]!;
    expect(t.outputTokens).toBe(12);
    expect(t.reasoningTokens).toBe(8);
    expect(t.reason).toBe('length');
    expect(t.promptTokens).toBe(prompt);
    expect(t.chunks.reduce((a, c) => a + c[1], 0)).toBe(12);
    expect(t.firstTokenMs).toBe(t.chunks[0]![0]);
  });

  it('continuous_usage_stats puts cumulative usage on every chunk, only with include_usage', () => {
    const h = harness({ overrides: { reasoningTokens: 0 } });
    const w = h.call(
      'POST',
      '/v1/chat/completions',
      chatBody({ stream_options: { include_usage: true, continuous_usage_stats: true } }),
    );
    const js = jsonEvents(w.body);
    let words = 0;
    for (const e of js.slice(0, -1)) {
      words += (e.choices[0].delta.content ?? '').split(' ').filter(Boolean).length;
      expect(e.usage.completion_tokens).toBe(words);
    }
    const w2 = h.call(
      'POST',
      '/v1/chat/completions',
      chatBody({ stream_options: { continuous_usage_stats: true } }),
    );
    for (const e of jsonEvents(w2.body)) expect(e.usage).toBeUndefined();
  });

  it('exact bytes of the role chunk and [DONE]', () => {
    const h = harness();
    const w = h.call('POST', '/v1/chat/completions', chatBody({ max_tokens: 1 }));
    const id = h.ctx.truth.all()[0]!.id;
    expect(w.body.startsWith(`data: {"id":"${id}","object":"chat.completion.chunk","created":`)).toBe(true);
    expect(w.body).toContain(
      '"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n',
    );
    expect(w.body.endsWith('\n\ndata: [DONE]\n\n')).toBe(true);
  });

  it('completions: text_completion chunks, no role chunk, default max_tokens 16', () => {
    const h = harness();
    const w = h.call('POST', '/v1/completions', {
      model: 'sim/tiny',
      prompt: 'Once upon a time',
      stream: true,
      ignore_eos: true,
    });
    const js = jsonEvents(w.body);
    expect(js.every((e) => e.object === 'text_completion')).toBe(true);
    expect(js[0]!.choices[0].text.length).toBeGreaterThan(0);
    expect(h.ctx.truth.all()[0]!.outputTokens).toBe(16);
  });

  it('non-streaming chat returns one object with message, reasoning and usage', () => {
    const h = harness();
    const w = h.call('POST', '/v1/chat/completions', chatBody({ stream: false }));
    const b = JSON.parse(w.body);
    expect(b.object).toBe('chat.completion');
    expect(b.choices[0].message.role).toBe('assistant');
    expect(b.choices[0].message.reasoning.split(' ').filter(Boolean)).toHaveLength(8);
    expect(b.usage.completion_tokens).toBe(12);
  });
});

describe('vllm flavor: discovery, errors, metrics', () => {
  it('/v1/models carries max_model_len; /version; /health is empty 200', () => {
    const h = harness();
    const m = JSON.parse(h.call('GET', '/v1/models').body);
    expect(m.data[0]).toMatchObject({ id: 'sim/tiny', owned_by: 'vllm', max_model_len: 32768 });
    expect(JSON.parse(h.call('GET', '/version').body)).toEqual({ version: '0.30.0-sim' });
    const health = h.call('GET', '/health');
    expect([health.status, health.body]).toEqual([200, '']);
  });

  it('/tokenize counts exactly what usage.prompt_tokens reports (chat template included)', () => {
    const h = harness();
    const messages = [{ role: 'user', content: 'The quick brown fox jumps over the lazy dog, twice.' }];
    const tok = JSON.parse(h.call('POST', '/tokenize', { model: 'sim/tiny', messages }).body);
    const w = h.call('POST', '/v1/chat/completions', chatBody({ messages, stream: false, max_tokens: 1 }));
    expect(JSON.parse(w.body).usage.prompt_tokens).toBe(tok.count);
    expect(tok.max_model_len).toBe(32768);
    expect(tok.tokens).toHaveLength(tok.count);
    const p = JSON.parse(h.call('POST', '/tokenize', { prompt: 'abcd efgh' }).body);
    expect(p.count).toBe(2);
  });

  it('401 {"error":"Unauthorized"} on /v1 paths only', () => {
    const h = harness({ apiKey: 'sk-secret-1' });
    const w = h.call('POST', '/v1/chat/completions', chatBody());
    expect([w.status, w.body]).toEqual([401, '{"error":"Unauthorized"}']);
    expect(h.call('GET', '/v1/models').status).toBe(401);
    expect(h.call('GET', '/metrics').status).toBe(200);
    expect(h.call('GET', '/version').status).toBe(200);
    expect(h.call('POST', '/tokenize', { prompt: 'x' }).status).toBe(200);
    const ok = h.call('GET', '/v1/models', undefined, { Authorization: 'Bearer sk-secret-1' });
    expect(ok.status).toBe(200);
  });

  it('404 NotFoundError for an unknown model; 400 for too long prompts and too large max_tokens', () => {
    const h = harness();
    const w = h.call('POST', '/v1/chat/completions', chatBody({ model: 'nope' }));
    expect(w.status).toBe(404);
    expect(JSON.parse(w.body).error).toMatchObject({
      type: 'NotFoundError',
      message: 'The model `nope` does not exist.',
      code: 404,
    });
    const long = 'word '.repeat(40_000);
    const t = h.call(
      'POST',
      '/v1/chat/completions',
      chatBody({ messages: [{ role: 'user', content: long }] }),
    );
    expect(t.status).toBe(400);
    expect(JSON.parse(t.body).error.message).toMatch(
      /^This model's maximum context length is 32768 tokens\. However, your request has \d+ input tokens/,
    );
    const m = h.call('POST', '/v1/chat/completions', chatBody({ max_tokens: 40_000 }));
    expect(m.status).toBe(400);
    expect(JSON.parse(m.body).error.message).toMatch(
      /^'max_tokens' or 'max_completion_tokens' is too large: 40000\./,
    );
    const so = h.call(
      'POST',
      '/v1/chat/completions',
      chatBody({ stream: false, stream_options: { include_usage: true } }),
    );
    expect(so.status).toBe(400);
  });

  it('max_completion_tokens wins over max_tokens', () => {
    const h = harness();
    h.call('POST', '/v1/chat/completions', chatBody({ max_tokens: 5, max_completion_tokens: 7 }));
    expect(h.ctx.truth.all()[0]!.outputTokens).toBe(7);
  });

  it('/metrics: running/waiting gauges, KV usage, cache_config_info, prefix cache and token counters', () => {
    const h = harness({ overrides: { maxNumSeqs: 1 } });
    const messages = [{ role: 'user', content: 'a shared prefix of some length '.repeat(20) }];
    h.send('POST', '/v1/chat/completions', chatBody({ messages, max_tokens: 1000 }));
    h.send('POST', '/v1/chat/completions', chatBody({ messages, max_tokens: 1000 }));
    h.clock.advance(50);
    const text = h.call('GET', '/metrics').body;
    expect(text).toMatch(/^vllm:num_requests_running\{model_name="sim\/tiny",engine="0"\} 1$/m);
    expect(text).toMatch(/^vllm:num_requests_waiting\{model_name="sim\/tiny",engine="0"\} 1$/m);
    expect(text).toMatch(
      /^vllm:cache_config_info\{block_size="16",.*num_gpu_blocks="18750".*kv_cache_size_tokens="300000"/m,
    );
    expect(text).toMatch(/^vllm:kv_cache_usage_perc\{[^}]*\} 0\.\d+/m);
    for (const name of [
      'prefix_cache_queries_total',
      'prefix_cache_hits_total',
      'prompt_tokens_total',
      'generation_tokens_total',
      'num_preemptions_total',
    ]) {
      expect(text).toContain(`vllm:${name}{`);
    }
    // Same prompt twice: the second hits the prefix cache.
    const hits = Number(
      /^vllm:prefix_cache_hits_total\{[^}]*\} (\d+)/m.exec(h.call('GET', '/metrics').body)![1],
    );
    expect(hits).toBeGreaterThan(0);
    const off = harness({ overrides: { metrics: false } });
    expect(off.call('GET', '/metrics').status).toBe(404);
  });

  it('spec decode counters appear only when speculative decoding is configured', () => {
    const h = harness({ overrides: { speculative: { k: 3, meanTokens: 2.5 } } });
    h.call('POST', '/v1/chat/completions', chatBody({ max_tokens: 50 }));
    const text = h.call('GET', '/metrics').body;
    expect(text).toMatch(/^vllm:spec_decode_num_drafts_total\{[^}]*\} [1-9]/m);
    expect(text).toContain('vllm:spec_decode_num_accepted_tokens_per_pos_total{');
    expect(harness().call('GET', '/metrics').body).not.toContain('spec_decode');
    // Multi-token chunks: the truth holds chunks larger than one token, and sums to the usage count.
    const t = h.ctx.truth.all()[0]!;
    expect(Math.max(...t.chunks.map((c) => c[1]))).toBeGreaterThan(1);
    expect(t.outputTokens).toBe(50);
  });

  it('a client disconnect aborts the request in the engine and the truth says abort', () => {
    const h = harness();
    const w = h.send('POST', '/v1/chat/completions', chatBody({ max_tokens: 5000 }));
    h.clock.advance(30);
    w.disconnect();
    h.clock.advance(100);
    const t = h.ctx.truth.all()[0]!;
    expect(t.reason).toBe('abort');
    expect(h.ctx.engine.sched.running).toHaveLength(0);
    expect(t.outputTokens).toBeGreaterThan(0);
  });
});
