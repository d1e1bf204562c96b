import { describe, expect, it } from 'vitest';
import { chatBody, events, harness, jsonEvents } from './handler-helpers.js';

const long = (n: number) => 'word '.repeat(n);

describe('sglang flavor', () => {
  it('reasoning_content, finish in a separate empty-delta chunk with matched_stop, reasoning_tokens in usage', () => {
    const h = harness({ flavor: 'sglang' });
    const w = h.call('POST', '/v1/chat/completions', chatBody({ stream_options: { include_usage: true } }));
    const js = jsonEvents(w.body);
    expect(js[0]!.choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(js.some((e) => e.choices[0]?.delta?.reasoning_content)).toBe(true);
    expect(js.some((e) => e.choices[0]?.delta?.reasoning)).toBe(false);
    const fin = js.at(-2)!;
    expect(fin.choices[0]).toMatchObject({ delta: {}, finish_reason: 'length', matched_stop: null });
    expect(js.at(-3)!.choices[0].finish_reason).toBeNull();
    expect(js.at(-1)!.usage.reasoning_tokens).toBe(8);
    expect(events(w.body).at(-1)).toBe('[DONE]');
  });

  it('accepts any model name; flat error body; key needed on /v1/models and /get_server_info but not /health', () => {
    const h = harness({ flavor: 'sglang', apiKey: 'sk-sg-key' });
    const auth = { Authorization: 'Bearer sk-sg-key' };
    expect(h.call('POST', '/v1/chat/completions', chatBody({ model: 'whatever' }), auth).status).toBe(200);
    expect(h.call('GET', '/v1/models').status).toBe(401);
    expect(h.call('GET', '/get_server_info').status).toBe(401);
    expect(h.call('GET', '/health').status).toBe(200);
    const info = JSON.parse(h.call('GET', '/get_server_info', undefined, auth).body);
    expect(info).toMatchObject({
      max_total_num_tokens: 300000,
      context_length: 32768,
      max_running_requests: 16,
    });
    const tl = h.call(
      'POST',
      '/v1/chat/completions',
      chatBody({ messages: [{ role: 'user', content: long(40_000) }] }),
      auth,
    );
    expect(tl.status).toBe(400);
    expect(JSON.parse(tl.body)).toMatchObject({ object: 'error', type: 'BadRequestError', code: 400 });
    const metrics = h.call('GET', '/metrics').body;
    for (const n of [
      'sglang:num_running_reqs',
      'sglang:num_queue_reqs',
      'sglang:token_usage',
      'sglang:max_total_num_tokens',
    ]) {
      expect(metrics).toContain(n);
    }
  });
});

describe('llamacpp flavor', () => {
  it('role chunk with content null at slot start, one event per token, separate finish with delta {}', () => {
    const h = harness({
      flavor: 'llamacpp',
      overrides: { speculative: { k: 3, meanTokens: 2.5 }, reasoningTokens: 0 },
    });
    const w = h.call('POST', '/v1/chat/completions', chatBody({ stream_options: { include_usage: true } }));
    const js = jsonEvents(w.body);
    expect(js[0]!.choices[0].delta).toEqual({ role: 'assistant', content: null });
    const tokenChunks = js.filter((e) => e.choices[0]?.delta?.content);
    expect(tokenChunks).toHaveLength(12);
    for (const c of tokenChunks)
      expect(c.choices[0].delta.content.split(' ').filter(Boolean)).toHaveLength(1);
    expect(js.at(-2)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'length' });
    expect(js.at(-1)!.choices).toEqual([]);
    // Truth: role chunk is not a token; the first token chunk comes after it.
    const t = h.ctx.truth.all()[0]!;
    expect(t.chunks).toHaveLength(12);
    expect(w.writes[0]!.atMs).toBeLessThanOrEqual(t.firstTokenMs!);
  });

  it('no response headers until a slot frees (deferred requests)', () => {
    const h = harness({ flavor: 'llamacpp', overrides: { maxNumSeqs: 1 } });
    const a = h.send('POST', '/v1/chat/completions', chatBody({ max_tokens: 100 }));
    const b = h.send('POST', '/v1/chat/completions', chatBody({ max_tokens: 1 }));
    h.clock.advance(20);
    expect(a.headSent).toBe(true);
    expect(b.headSent).toBe(false);
    expect(h.call('GET', '/metrics').body).toContain('llamacpp:requests_deferred');
    expect(b.headSent).toBe(true);
  });

  it('errors: exceed_context_size_error 400, Invalid API Key 401 (x-api-key accepted), no [DONE] after a stream error', () => {
    const h = harness({ flavor: 'llamacpp', apiKey: 'sk-llama', faults: 'error-event:count=1:at=3' });
    const auth = { 'X-Api-Key': 'sk-llama' };
    const e = h.call('POST', '/v1/chat/completions', chatBody(), auth);
    expect(events(e.body).at(-1)).not.toBe('[DONE]');
    expect(JSON.parse(events(e.body).at(-1)!).error.type).toBe('server_error');
    const tl = h.call(
      'POST',
      '/v1/chat/completions',
      chatBody({ messages: [{ role: 'user', content: long(40_000) }] }),
      auth,
    );
    expect(tl.status).toBe(400);
    expect(JSON.parse(tl.body).error).toMatchObject({ type: 'exceed_context_size_error', n_ctx: 18944 }); // -c 300000 -np 16: GGML_PAD(300032 / 16, 256)
    const un = h.call('POST', '/v1/chat/completions', chatBody());
    expect([un.status, JSON.parse(un.body).error.type]).toEqual([401, 'authentication_error']);
    expect(h.call('GET', '/health').body).toBe('{"status":"ok"}');
    expect(h.call('GET', '/props').status).toBe(401);
    const props = JSON.parse(h.call('GET', '/props', undefined, auth).body);
    expect(props.default_generation_settings.n_ctx).toBe(18944);
    expect(typeof props.build_info).toBe('string');
    const tok = JSON.parse(h.call('POST', '/tokenize', { content: 'abcd efgh ijkl' }, auth).body);
    expect(tok.tokens).toHaveLength(3);
  });
});

describe('tgi flavor', () => {
  it('role on every chunk, empty id, one event per token, finish on the last token chunk', () => {
    const h = harness({ flavor: 'tgi' });
    const w = h.call('POST', '/v1/chat/completions', chatBody({ stream_options: { include_usage: true } }));
    const js = jsonEvents(w.body);
    const tokens = js.filter((e) => e.choices.length > 0);
    expect(tokens).toHaveLength(12);
    for (const c of tokens) {
      expect(c.id).toBe('');
      expect(c.choices[0].delta.role).toBe('assistant');
    }
    // No reasoning parser: reasoning text stays in content.
    expect(js.some((e) => e.choices[0]?.delta?.reasoning !== undefined)).toBe(false);
    expect(tokens.at(-1)!.choices[0].finish_reason).toBe('length');
    expect(events(w.body).at(-1)).toBe('[DONE]');
  });

  it('validation errors are 422, inside a 200 stream when streaming; 401 has an empty body; min_tokens ignored', () => {
    const h = harness({ flavor: 'tgi', apiKey: 'sk-tgi-key' });
    const auth = { Authorization: 'Bearer sk-tgi-key' };
    const big = chatBody({ messages: [{ role: 'user', content: long(40_000) }] });
    const s = h.call('POST', '/v1/chat/completions', big, auth);
    expect(s.status).toBe(200);
    expect(JSON.parse(events(s.body)[0]!).error.http_status_code).toBe(422);
    expect(events(s.body).at(-1)).toBe('[DONE]');
    const n = h.call('POST', '/v1/chat/completions', { ...big, stream: false }, auth);
    expect(n.status).toBe(422);
    expect(JSON.parse(n.body)).toMatchObject({ error_type: 'validation' });
    const un = h.call('POST', '/v1/chat/completions', chatBody());
    expect([un.status, un.body]).toEqual([401, '']);
    expect(h.call('GET', '/info').status).toBe(200);
    expect(JSON.parse(h.call('GET', '/v1/models').body)[0].id).toBe('sim/tiny');
    expect(h.call('GET', '/metrics').body).toContain('tgi_batch_max_total_tokens 300000');
  });

  it('sends comment keep-alives while a stream is silent (long prefill)', () => {
    const h = harness({ flavor: 'tgi', overrides: { prefillTokensPerS: [[1024, 1000]] } });
    const w = h.send(
      'POST',
      '/v1/chat/completions',
      chatBody({ messages: [{ role: 'user', content: long(20_000) }] }),
    );
    h.clock.advance(16_000);
    for (const s of h.ctx.sessions) s.keepAlive(h.clock.now(), 15_000);
    expect(events(w.body)).toEqual([':']);
    h.clock.advance(60_000);
    expect(events(w.body).at(-1)).toBe('[DONE]');
    const v = harness({ overrides: { prefillTokensPerS: [[1024, 1000]] } });
    const vw = v.send(
      'POST',
      '/v1/chat/completions',
      chatBody({ messages: [{ role: 'user', content: long(20_000) }] }),
    );
    v.clock.advance(16_000);
    for (const s of v.ctx.sessions) s.keepAlive(v.clock.now(), 15_000);
    expect(vw.body).toBe(''); // vLLM sends no comments
  });

  it('answers 429 once more than maxConcurrentRequests are in flight', () => {
    const h = harness({ flavor: 'tgi', overrides: { maxConcurrentRequests: 2 } });
    h.send('POST', '/v1/chat/completions', chatBody({ max_tokens: 1000 }));
    h.send('POST', '/v1/chat/completions', chatBody({ max_tokens: 1000 }));
    const third = h.send('POST', '/v1/chat/completions', chatBody({ stream: false }));
    expect(third.status).toBe(429);
    expect(JSON.parse(third.body)).toEqual({ error: 'Model is overloaded', error_type: 'overloaded' });
  });
});

describe('ollama flavor', () => {
  it('role with the first content, delta.reasoning, separate finish chunk, fp_ollama', () => {
    const h = harness({ flavor: 'ollama' });
    const w = h.call('POST', '/v1/chat/completions', chatBody());
    const js = jsonEvents(w.body);
    expect(js[0]!.choices[0].delta.role).toBe('assistant');
    expect(js[0]!.choices[0].delta.reasoning.length).toBeGreaterThan(0);
    expect(js[1]!.choices[0].delta.role).toBeUndefined();
    expect(js.at(-1)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'length' });
    for (const e of js) expect(e.system_fingerprint).toBe('fp_ollama');
  });

  it('404 for unknown models, truncates long prompts, no metrics or tokenize, /api/version', () => {
    const h = harness({ flavor: 'ollama' });
    const nf = h.call('POST', '/v1/chat/completions', chatBody({ model: 'llama9' }));
    expect(nf.status).toBe(404);
    expect(JSON.parse(nf.body).error).toMatchObject({
      message: 'model "llama9" not found, try pulling it first',
      type: 'not_found_error',
    });
    const big = h.call(
      'POST',
      '/v1/chat/completions',
      chatBody({ stream: false, max_tokens: 1, messages: [{ role: 'user', content: long(40_000) }] }),
    );
    expect(big.status).toBe(200);
    expect(JSON.parse(big.body).usage.prompt_tokens).toBe(32767);
    expect(h.call('GET', '/metrics').status).toBe(404);
    expect(h.call('POST', '/tokenize', { prompt: 'x' }).status).toBe(404);
    expect(JSON.parse(h.call('GET', '/api/version').body).version).toBeDefined();
    // max_completion_tokens is not a field Ollama knows.
    h.call('POST', '/v1/chat/completions', chatBody({ max_tokens: 3, max_completion_tokens: 9 }));
    expect(h.ctx.truth.all().at(-1)!.outputTokens).toBeLessThanOrEqual(3);
  });
});

describe('trtllm flavor', () => {
  it('role chunk without content and with a space before the blank line; usage by default inside stream_options', () => {
    const h = harness({ flavor: 'trtllm' });
    const w = h.call('POST', '/v1/chat/completions', chatBody({ stream_options: {} }));
    expect(w.body).toMatch(/^data: \{[^\n]*"delta":\{"role":"assistant"\}[^\n]*\} \n\n/);
    const js = jsonEvents(w.body);
    const usage = js.at(-1)!;
    expect(usage.choices).toEqual([]);
    expect(usage.usage.prompt_tokens_details).toEqual({ cached_tokens: 0 });
    expect(js.at(-2)!.choices[0].avg_decoded_tokens_per_iter).toBeGreaterThanOrEqual(1);
  });

  it('rejects unknown fields with 400; /metrics is JSON iteration stats with kvCacheStats', () => {
    const h = harness({ flavor: 'trtllm' });
    const bad = h.call('POST', '/v1/chat/completions', chatBody({ ignore_eos: true, frobnicate: 1 }));
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error).toContain('frobnicate');
    const stats = JSON.parse(h.call('GET', '/metrics').body);
    expect(stats[0].kvCacheStats).toMatchObject({ maxNumBlocks: 18750, tokensPerBlock: 16 });
    expect(h.call('GET', '/prometheus/metrics').body).toContain('trtllm_num_requests_waiting');
    const tok = JSON.parse(h.call('POST', '/_internal/tokenize', { prompt: 'abcd efgh' }).body);
    expect(tok.count).toBe(2);
  });

  it('a mid-stream failure closes the connection with no error event and no [DONE]', () => {
    const h = harness({ flavor: 'trtllm', faults: 'error-event:at=4' });
    const w = h.call('POST', '/v1/chat/completions', chatBody());
    expect(w.destroyed).toBe(true);
    expect(w.body).not.toContain('[DONE]');
    expect(w.body).not.toContain('"error"');
    expect(h.ctx.truth.all()[0]!.reason).toBe('error');
  });
});
