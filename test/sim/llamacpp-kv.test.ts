import { afterEach, describe, expect, it } from 'vitest';
import { startSim, type SimHandle } from '../../src/sim/server.js';
import { llamacppSlots } from '../../src/engines/llamacpp.js';
import { countChatTokens } from '../../src/sim/tokenizer.js';
import { chatBody, events, harness, jsonEvents } from './handler-helpers.js';

const words = (n: number) => Array.from({ length: n }, () => 'abcd').join(' '); // n sim tokens
const user = (n: number) => [{ role: 'user', content: words(n) }];

describe('llama.cpp KV sizing (llama-context.cpp arithmetic)', () => {
  it('split KV pads each slot to 256 and resizes the pool; unified shares -c; a slot is capped at n_ctx_train', () => {
    const split = (c: number, np: number, train = 1 << 20) =>
      llamacppSlots({ ctx: c, slots: np, nCtxTrain: train, unified: false });
    // -c 200000 -np 4: n_ctx 200192, per slot GGML_PAD(50048, 256) = 50176, pool 4 x 50176.
    expect(split(200_000, 4)).toMatchObject({ nCtx: 200_704, nCtxSeq: 50_176, nCtxSlot: 50_176, slots: 4 });
    // Seen on a real server: -c 8192 -np 3 gives n_ctx 8448 and 2816 per slot; -np 2 gives 4096.
    expect(split(8192, 3)).toMatchObject({ nCtx: 8448, nCtxSeq: 2816 });
    expect(split(8192, 2)).toMatchObject({ nCtx: 8192, nCtxSeq: 4096 });
    expect(split(262_144, 4, 32_768)).toMatchObject({ nCtxSeq: 65_536, nCtxSlot: 32_768 });
    // A llama-server with -c 65536, 4 unified slots, a 32,768-token model.
    const u = llamacppSlots({ ctx: 65_536, slots: 4, nCtxTrain: 32_768, unified: true });
    expect(u).toMatchObject({ nCtx: 65_536, nCtxSeq: 65_536, nCtxSlot: 32_768, unified: true });
  });
});

describe('llama.cpp split KV (-np N)', () => {
  const opts = {
    flavor: 'llamacpp' as const,
    overrides: { kvCapacityTokens: 4000, maxNumSeqs: 4, maxModelLen: 8192, reasoningTokens: 0 },
  };

  it('the API shows the per-slot context; the pool is slots x slot', () => {
    const h = harness(opts);
    // GGML_PAD(4096 / 4, 256) = 1024 per slot.
    expect(h.ctx.engine.sched.kv.numBlocks * h.ctx.engine.sched.kv.blockSize).toBe(4096);
    const props = JSON.parse(h.call('GET', '/props').body);
    expect(props.default_generation_settings.n_ctx).toBe(1024);
    expect(props.total_slots).toBe(4);
    const slots = JSON.parse(h.call('GET', '/slots').body) as Array<{ n_ctx: number }>;
    expect(slots.map((s) => s.n_ctx)).toEqual([1024, 1024, 1024, 1024]);
    expect(JSON.parse(h.call('GET', '/v1/models').body).data[0].meta.n_ctx_train).toBe(8192);
  });

  it('a prompt over the slot is a 400 naming the slot n_ctx; generation stops at the slot with "length"', () => {
    const h = harness(opts);
    const over = h.call('POST', '/v1/chat/completions', chatBody({ messages: user(1100), stream: true }));
    expect(over.status).toBe(400);
    expect(JSON.parse(over.body).error).toMatchObject({
      type: 'exceed_context_size_error',
      n_ctx: 1024,
      n_prompt_tokens: countChatTokens(user(1100)),
    });
    const prompt = countChatTokens(user(900));
    const w = h.call('POST', '/v1/chat/completions', chatBody({ messages: user(900), max_tokens: 5000 }));
    const js = jsonEvents(w.body);
    expect(js.at(-1)!.choices[0].finish_reason).toBe('length');
    expect(h.ctx.truth.all().at(-1)!.outputTokens).toBe(1024 - prompt);
  });

  it('all slots full of long requests run together (no preemption, no error); the 5th waits without headers', () => {
    const h = harness(opts);
    const ws = Array.from({ length: 5 }, () =>
      h.send('POST', '/v1/chat/completions', chatBody({ messages: user(500), max_tokens: 500 })),
    );
    h.clock.advance(30);
    expect(ws.map((w) => w.headSent)).toEqual([true, true, true, true, false]);
    h.clock.advance(60_000);
    expect(ws.every((w) => events(w.body).at(-1) === '[DONE]')).toBe(true);
    expect(h.ctx.engine.sched.counters.preemptions).toBe(0);
  });
});

describe('llama.cpp unified KV (--kv-unified)', () => {
  const opts = {
    flavor: 'llamacpp' as const,
    overrides: {
      kvCapacityTokens: 4096,
      maxNumSeqs: 4,
      maxModelLen: 2048,
      kvUnified: true,
      reasoningTokens: 0,
    },
  };

  it('the API shows only the per-slot cap, below the pool', () => {
    const h = harness(opts);
    expect(h.ctx.engine.sched.kv.numBlocks * h.ctx.engine.sched.kv.blockSize).toBe(4096);
    expect(JSON.parse(h.call('GET', '/props').body).default_generation_settings.n_ctx).toBe(2048);
    expect(JSON.parse(h.call('GET', '/slots').body)[3].n_ctx).toBe(2048);
    const over = h.call('POST', '/v1/chat/completions', chatBody({ messages: user(2100) }));
    expect(JSON.parse(over.body).error.n_ctx).toBe(2048);
  });

  it('requests that fit the pool together all finish', () => {
    const h = harness(opts);
    // 2 x (1000 + 12 + 900) = 3824 <= 4096
    const ws = [0, 1].map(() =>
      h.send('POST', '/v1/chat/completions', chatBody({ messages: user(1000), max_tokens: 900 })),
    );
    h.clock.advance(60_000);
    expect(ws.every((w) => events(w.body).at(-1) === '[DONE]')).toBe(true);
  });

  it('a full pool fails every running request mid-stream with "Context size has been exceeded." and no [DONE]', () => {
    const h = harness(opts);
    // 4 x (1000 + 12 + 900) = 7648 > 4096: each fits its slot, together they overflow the pool.
    const ws = Array.from({ length: 4 }, () =>
      h.send('POST', '/v1/chat/completions', chatBody({ messages: user(1000), max_tokens: 900 })),
    );
    h.clock.advance(60_000);
    for (const w of ws) {
      expect(w.status).toBe(200);
      const last = events(w.body).at(-1)!;
      expect(last).not.toBe('[DONE]');
      expect(JSON.parse(last).error).toEqual({
        code: 500,
        message: 'Context size has been exceeded.',
        type: 'server_error',
      });
      expect(jsonEvents(w.body).some((e) => e.choices?.[0]?.delta?.content)).toBe(true); // it had streamed tokens
    }
    const truth = h.ctx.truth.all();
    expect(truth.map((t) => t.reason)).toEqual(['error', 'error', 'error', 'error']);
    expect(new Set(truth.map((t) => t.endMs)).size).toBe(1); // all at once
    // The server stays up: the next request runs.
    const after = h.call('POST', '/v1/chat/completions', chatBody());
    expect(events(after.body).at(-1)).toBe('[DONE]');
  });
});

describe('launch command', () => {
  let sim: SimHandle | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('GET /sim/launch and the handle give the llama-server command line with -c, -np and --kv-unified', async () => {
    sim = await startSim({
      profile: 'tiny',
      flavor: 'llamacpp',
      overrides: { kvCapacityTokens: 65_536, maxNumSeqs: 4, kvUnified: true },
    });
    const port = new URL(sim.url).port;
    expect(sim.launchCommand).toBe(
      `llama-server -m sim/tiny.gguf -a sim/tiny -c 65536 -np 4 --kv-unified -b 8192 --metrics --host 127.0.0.1 --port ${port}`,
    );
    const r = (await (await fetch(`${sim.url}/sim/launch`)).json()) as { command: string };
    expect(r.command).toBe(sim.launchCommand);
  });

  it('vLLM: the flags that size it, KV as --num-gpu-blocks-override', async () => {
    sim = await startSim({ profile: 'tiny', overrides: { metrics: false } });
    expect(sim.launchCommand).toContain('vllm serve sim/tiny --max-model-len 32768 --max-num-seqs 16');
    expect(sim.launchCommand).toContain(`--num-gpu-blocks-override ${Math.floor(300_000 / 16)}`);
  });
});
