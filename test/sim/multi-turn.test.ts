import { describe, expect, it } from 'vitest';
import type { Flavor } from '../../src/sim/profile-schema.js';
import {
  countTokens,
  outputText,
  outputTokenId,
  renderChat,
  tokenIds,
  type ChatMessage,
} from '../../src/sim/tokenizer.js';
import { harness, jsonEvents, type Harness } from './handler-helpers.js';

// A conversation's turn k is turn k - 1's messages, the answer the server streamed, and a new user message: the
// sim serves it with turn k - 1's whole context cached (docs/sim.md "Multi-turn"). Each turn's cached tokens are
// read where the flavor reports them and from the truth.

const BS = 16;
const SYSTEM = 'You are a terse assistant who answers about ships and the sea.';
const USER = [
  'Tell me about the longest voyage a sailing ship ever made without a port of call, in detail.',
  'Which route did it take, and how did the crew keep fresh water on board for so many weeks?',
  'Summarise both answers in three short points for a child of ten years.',
];
const MAX = [35, 30, 7]; // answer lengths (ignore_eos: each ends at max tokens); turn 1 ends on a block: 61 + 35 = 96

interface Turn {
  prompt: number; // usage.prompt_tokens
  answer: number; // tokens streamed
  reported: number | undefined; // cached tokens as the flavor reports them (usage or timings), if it does
  truth: number;
}

// Runs the three turns; `keepReasoning`: the client puts the reasoning text back into the history too.
function converse(h: Harness, flavor: Flavor, api: 'chat' | 'completions' = 'chat'): Turn[] {
  const messages: ChatMessage[] = [{ role: 'system', content: SYSTEM }];
  let text = SYSTEM;
  const turns: Turn[] = [];
  for (let k = 0; k < USER.length; k++) {
    messages.push({ role: 'user', content: USER[k]! });
    text += `\n\n${USER[k]!}`;
    const body = {
      model: 'sim/tiny',
      max_tokens: MAX[k],
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
      ...(api === 'chat' ? { messages } : { prompt: text }),
    };
    const w = h.call('POST', api === 'chat' ? '/v1/chat/completions' : '/v1/completions', body);
    const js = jsonEvents(w.body);
    const answer = js
      .map((e) => (api === 'chat' ? (e.choices?.[0]?.delta?.content ?? '') : (e.choices?.[0]?.text ?? '')))
      .join('');
    const usage = js.find((e) => e.usage && e.choices?.length === 0)?.usage;
    const timings = js.find((e) => e.timings)?.timings;
    const truth = h.ctx.truth.all().at(-1)!;
    turns.push({
      prompt: usage.prompt_tokens,
      answer: usage.completion_tokens,
      reported: flavor === 'llamacpp' ? timings.cache_n : usage.prompt_tokens_details?.cached_tokens,
      truth: truth.cachedTokens,
    });
    expect(countTokens(answer)).toBe(usage.completion_tokens); // no reasoning in these profiles
    messages.push({ role: 'assistant', content: answer });
    text += answer;
  }
  return turns;
}

// Turn k's cached tokens: turn k - 1's prompt and answer whose KV was computed (all but the answer's last token,
// which ended at max tokens), in whole blocks on a block cache, token by token on llama.cpp.
const expected = (t: Turn[], blocks: boolean) =>
  t.map((_, k) => {
    if (k === 0) return 0;
    const context = t[k - 1]!.prompt + t[k - 1]!.answer - 1;
    return blocks ? Math.floor(context / BS) * BS : context;
  });

describe('multi-turn: turn k is served with turn k - 1 cached', () => {
  const cases: Array<[Flavor, boolean]> = [
    ['vllm', true],
    ['sglang', true],
    ['trtllm', true],
    ['tgi', false],
    ['ollama', false],
    ['llamacpp', true],
  ];
  for (const [flavor, reports] of cases) {
    it(`${flavor}: cached tokens per turn are the previous context${reports ? ', as reported' : ''}`, () => {
      const h = harness({ flavor, overrides: { reasoningTokens: 0, promptTokensDetails: true } });
      const turns = converse(h, flavor);
      const want = expected(turns, flavor !== 'llamacpp');
      expect(turns.map((t) => t.truth)).toEqual(want);
      if (reports) expect(turns.map((t) => t.reported)).toEqual(want);
      else expect(turns.every((t) => t.reported === undefined)).toBe(true);
      // The prompts are what the chat template makes of the history the client sent back.
      expect(turns[1]!.prompt).toBe(turns[0]!.prompt + turns[0]!.answer + 3 + countTokens(USER[1]!) + 3);
      expect(want[2]).toBeGreaterThan(want[1]!);
    });
  }

  it('completions: the answer appended to the text is cached the same way (vLLM, llama.cpp)', () => {
    for (const flavor of ['vllm', 'llamacpp'] as const) {
      const h = harness({ flavor, overrides: { reasoningTokens: 0, promptTokensDetails: true } });
      const turns = converse(h, flavor, 'completions');
      expect(turns.map((t) => t.truth)).toEqual(expected(turns, flavor === 'vllm'));
      expect(turns.map((t) => t.reported)).toEqual(expected(turns, flavor === 'vllm'));
    }
  });

  it('an answer sent back as an assistant message is the tokens the sim generated after the prompt it answered', () => {
    const history: ChatMessage[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: USER[0]! },
    ];
    const prompt = Array.from(tokenIds(renderChat(history)));
    for (const n of [1, 16, 21, 40]) {
      const answer = outputText('content', 0, n);
      const next = renderChat([
        ...history,
        { role: 'assistant', content: answer },
        { role: 'user', content: USER[1]! },
      ]);
      const generated = Array.from({ length: n }, (_, j) => outputTokenId(j, 0));
      expect(Array.from(tokenIds(next)).slice(0, prompt.length + n)).toEqual([...prompt, ...generated]);
      // The completions API: the answer appended to the prompt text.
      const text = `${USER[0]!}${answer}`;
      expect(Array.from(tokenIds(text)).slice(countTokens(USER[0]!))).toEqual(generated);
    }
  });
});

describe('multi-turn with reasoning', () => {
  it('vLLM: history without the reasoning text (as templates strip it) keeps turn 1 only, in whole blocks', () => {
    const h = harness({ flavor: 'vllm', overrides: { reasoningTokens: 8, promptTokensDetails: true } });
    const first = h.call('POST', '/v1/chat/completions', {
      model: 'sim/tiny',
      messages: [{ role: 'user', content: USER[0] }],
      max_tokens: MAX[0],
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
    });
    const js = jsonEvents(first.body);
    const content = js.map((e) => e.choices?.[0]?.delta?.content ?? '').join('');
    const p1 = js.find((e) => e.usage && e.choices?.length === 0)!.usage.prompt_tokens as number;
    h.call('POST', '/v1/chat/completions', {
      model: 'sim/tiny',
      messages: [
        { role: 'user', content: USER[0] },
        { role: 'assistant', content },
        { role: 'user', content: USER[1] },
      ],
      max_tokens: 4,
      stream: false,
    });
    expect(h.ctx.truth.all().at(-1)!.cachedTokens).toBe(Math.floor(p1 / BS) * BS);
  });

  it('TGI: the reasoning stays in the content, so the whole answer is cached', () => {
    const h = harness({ flavor: 'tgi', overrides: { reasoningTokens: 8 } });
    const turns = converse(h, 'tgi');
    expect(turns.map((t) => t.truth)).toEqual(expected(turns, true));
  });
});

describe("the engines' counters agree with the truth", () => {
  const counter = (body: string, name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(body)![1]);
  const sums = (h: Harness) => {
    const t = h.ctx.truth.all();
    return {
      cached: t.reduce((a, r) => a + r.cachedTokens, 0),
      prompt: t.reduce((a, r) => a + r.promptTokens, 0),
    };
  };

  it('vLLM prefix_cache hits / queries, SGLang cached / prompt tokens, llama.cpp prompt tokens computed', () => {
    const v = harness({ flavor: 'vllm', overrides: { reasoningTokens: 0 } });
    converse(v, 'vllm');
    const vm = v.call('GET', '/metrics').body;
    expect(counter(vm, 'vllm:prefix_cache_hits_total')).toBe(sums(v).cached);
    expect(counter(vm, 'vllm:prefix_cache_queries_total')).toBe(sums(v).prompt);
    expect(sums(v).cached).toBeGreaterThan(0);

    const s = harness({ flavor: 'sglang', overrides: { reasoningTokens: 0 } });
    converse(s, 'sglang');
    const sm = s.call('GET', '/metrics').body;
    expect(counter(sm, 'sglang:cached_tokens_total')).toBe(sums(s).cached);
    expect(counter(sm, 'sglang:prompt_tokens_total')).toBe(sums(s).prompt);

    const l = harness({ flavor: 'llamacpp', overrides: { reasoningTokens: 0 } });
    converse(l, 'llamacpp');
    const lm = l.call('GET', '/metrics').body;
    expect(counter(lm, 'llamacpp:prompt_tokens_total')).toBe(sums(l).prompt - sums(l).cached);
  });

  it('TensorRT-LLM: reused blocks in its JSON /metrics are the cached tokens in blocks', () => {
    const h = harness({ flavor: 'trtllm', overrides: { reasoningTokens: 0 } });
    converse(h, 'trtllm');
    const [stats] = JSON.parse(h.call('GET', '/metrics').body) as Array<{
      kvCacheStats: { reusedBlocks: number };
    }>;
    expect(stats!.kvCacheStats.reusedBlocks * BS).toBe(sums(h).cached);
  });
});

describe('llama.cpp reports cached prompt tokens in timings, and in usage only when not streaming', () => {
  it('non-streaming usage.prompt_tokens_details.cached_tokens = timings.cache_n; the streaming usage has none', () => {
    const h = harness({ flavor: 'llamacpp', overrides: { reasoningTokens: 0 } });
    const messages = [{ role: 'user', content: USER[0] }];
    const body = { model: 'sim/tiny', messages, max_tokens: 5, ignore_eos: true };
    h.call('POST', '/v1/chat/completions', body);
    const r = JSON.parse(h.call('POST', '/v1/chat/completions', body).body);
    expect(r.usage.prompt_tokens_details.cached_tokens).toBe(r.usage.prompt_tokens - 1);
    expect(r.timings.cache_n).toBe(r.usage.prompt_tokens - 1);
    const js = jsonEvents(
      h.call('POST', '/v1/chat/completions', {
        ...body,
        stream: true,
        stream_options: { include_usage: true },
      }).body,
    );
    const last = js.at(-1)!;
    expect(last.usage.prompt_tokens_details).toBeUndefined();
    expect(last.timings.cache_n).toBe(last.usage.prompt_tokens - 1);
    expect(h.ctx.truth.all().map((t) => t.cachedTokens)).toEqual([
      0,
      r.usage.prompt_tokens - 1,
      r.usage.prompt_tokens - 1,
    ]);
  });
});
