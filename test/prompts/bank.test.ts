import { afterEach, describe, expect, it } from 'vitest';
import { planLevel, type LevelSpec } from '../../src/load/index.js';
import {
  CLOSING_INSTRUCTION,
  PromptBank,
  preparePromptBank,
  type PromptBankSnapshot,
  type PromptRecipe,
} from '../../src/prompts/index.js';
import { probePromptTokens } from '../../src/prompts/probe.js';
import { SHORT_WORDS } from '../../src/prompts/words.js';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { countChatTokens, countTokens, outputText, renderChat } from '../../src/sim/tokenizer.js';
import { probeTarget } from '../../src/target/probe.js';
import { parseTraceText, readWorkload, type WorkloadSpec } from '../../src/workloads/index.js';
import { mooncakeTrace } from '../helpers/mooncake-trace.js';

// The sim's tokenizer in process: the server's count of a one-message chat prompt, template included (15 tokens).
const simChat = (text: string) => Promise.resolve(countChatTokens([{ role: 'user', content: text }]));
const served = (text: string) => countChatTokens([{ role: 'user', content: text }]);
const prepare = (tokenize: (t: string) => Promise<number | undefined> = simChat, warnings: string[] = []) =>
  preparePromptBank({
    runId: 'run-b',
    seed: 9,
    baseUrl: 'http://127.0.0.1:9/v1', // never reached: the tokenizer counts the template
    model: 'm',
    api: 'chat',
    tokenize,
    onWarning: (w) => warnings.push(w),
  });
// Content words of a one-message prompt (the closing instruction cut off).
const wordsOf = (text: string) => text.replace(CLOSING_INSTRUCTION, '').split(' ');

describe('the prompt bank against the sim tokenizer', () => {
  it('measures the sim exactly: every short word one token, a 15-token template, the closing instruction', async () => {
    const s = await prepare();
    expect(s).toMatchObject({ exact: true, tokensPerWord: 1, templateTokens: 15, sizing: 'tokenize' });
    expect(s.words).toEqual(SHORT_WORDS); // all of them 4 characters or fewer: one sim token each
    expect(s.closingTokens).toBe(countTokens(`x${CLOSING_INSTRUCTION}`) - 1);
  });

  it('prunes the words a tokenizer counts as two, and stays exact with the rest', async () => {
    // A stand-in tokenizer: a word of 4 letters is two tokens, others one, plus a template of 7.
    const count = (t: string) =>
      Promise.resolve(
        7 +
          t
            .split(/\s+/)
            .filter(Boolean)
            .reduce((n, w) => n + (/^[a-z]{4}$/.test(w) ? 2 : 1), 0),
      );
    let counts = 0;
    const s = await prepare((t) => (counts++, count(t)));
    expect(s.words).toEqual(SHORT_WORDS.filter((w) => w.length !== 4));
    expect(counts).toBeLessThan(100); // the words are in two runs: a few halvings find the border
    expect([s.exact, s.templateTokens]).toEqual([true, 7]);
    const bank = new PromptBank(s);
    const { text } = bank.prompt({ kind: 'unique', salt: 'x', index: 3, tokens: 3000 });
    expect(await count(text)).toBe(3000);
  });

  it('costs the sim five counts; a tokenizer and probes that do not answer give an estimate, said twice', async () => {
    let counts = 0;
    await prepare((t) => (counts++, simChat(t)));
    expect(counts).toBe(5); // the words once and twice, two samples, one with the closing instruction
    const warnings: string[] = [];
    const s = await prepare(() => Promise.resolve(undefined), warnings);
    expect([s.sizing, s.exact, s.tokensPerWord, s.templateTokens]).toEqual(['estimate', false, 1, 0]);
    expect(warnings).toEqual([
      expect.stringMatching(/tokenize endpoint did not answer .* probes instead/),
      expect.stringMatching(/probes \(max_tokens 1\) got no usage.prompt_tokens; .* tens of tokens/),
    ]);
  });

  it('a tokenizer that merges words gives a measured ratio, a warning, and prompts within 1%', async () => {
    const count = (t: string) => Promise.resolve(12 + Math.ceil(t.length / 4.6));
    const warnings: string[] = [];
    const s = await prepare(count, warnings);
    expect(s.exact).toBe(false);
    expect(s.tokensPerWord).toBeGreaterThan(0.8);
    expect(warnings).toEqual([expect.stringMatching(/counts \d\.\d{3} tokens a word .* about 1%/)]);
    const bank = new PromptBank(s);
    for (const tokens of [1000, 8192, 65_536]) {
      const n = await count(bank.prompt({ kind: 'unique', salt: 'x', index: tokens, tokens }).text);
      expect(Math.abs(n - tokens) / tokens).toBeLessThan(0.01);
    }
  });

  it('unique prompts: exactly their tokens, all distinct, neighbours differ in their first word', async () => {
    const bank = new PromptBank(await prepare());
    const texts = Array.from(
      { length: 400 },
      (_, i) => bank.prompt({ kind: 'unique', salt: 'run|lvl', index: i, tokens: 200 + i }).text,
    );
    texts.forEach((t, i) => expect(served(t)).toBe(200 + i));
    expect(new Set(texts).size).toBe(400);
    for (let i = 1; i < 400; i++) expect(wordsOf(texts[i]!)[0]).not.toBe(wordsOf(texts[i - 1]!)[0]);
    // Another salt (level or run) gives other texts for the same index.
    expect(bank.prompt({ kind: 'unique', salt: 'run|lvl2', index: 5, tokens: 205 }).text).not.toBe(texts[5]);
  });

  it('the snapshot is plain data: a bank rebuilt from its JSON gives the same texts', async () => {
    const s = await prepare();
    const again = new PromptBank(JSON.parse(JSON.stringify(s)) as PromptBankSnapshot);
    const r: PromptRecipe = { kind: 'blocks', salt: 'a', ids: [1, 2, 3], blockTokens: 64, tokens: 150 };
    expect(again.prompt(r)).toEqual(new PromptBank(s).prompt(r));
  });
});

describe('workload prompts on the sim tokenizer', () => {
  const level = (workload: string, extra: Partial<LevelSpec> = {}): LevelSpec => ({
    runId: 'run-b',
    seed: 4,
    row: 'w',
    key: 'w@1/s',
    load: { model: 'closed', concurrency: 1 },
    workload: { spec: readWorkload(workload) as WorkloadSpec },
    maxOutput: 64,
    ...extra,
  });

  it('a generated Mooncake trace: prompts within 1% of input_length, shared ids share their block text', async () => {
    const bank = new PromptBank(await prepare());
    const block = 512;
    const trace = mooncakeTrace({ requests: 300, block, seed: 21 });
    const lines = parseTraceText(trace.text, 'trace.jsonl', { block, timestamps: true });
    const spec = readWorkload(`mooncake:file=trace.jsonl,block=${block}`) as WorkloadSpec;
    const plans = planLevel(
      level('fixed', {
        load: { model: 'trace', timeScale: 1, timestampsMs: lines.map((l) => l.timestamp!) },
        workload: { spec, lines },
      }),
    ).all();
    expect(plans).toHaveLength(300);
    const blockText = new Map<number, string[]>(); // id -> the longest run of its words seen
    let reused = 0;
    let cacheable = 0;
    for (const [i, p] of plans.entries()) {
      const { text } = bank.prompt(p.prompt);
      const n = served(text);
      expect(Math.abs(n - lines[i]!.input) / lines[i]!.input).toBeLessThanOrEqual(0.01);
      expect(n).toBe(lines[i]!.input); // exact where the tokenizer is the server's
      const words = text.split(' ');
      lines[i]!.hashIds!.forEach((id, b) => {
        const mine = words.slice(b * block, (b + 1) * block);
        if (mine.length === 0) return;
        const seen = blockText.get(id);
        if (seen) {
          reused++;
          // Equal where both are whole; a cut block is the start of the whole one.
          const k = Math.min(seen.length, mine.length);
          expect(mine.slice(0, k)).toEqual(seen.slice(0, k));
        }
        if (!seen || mine.length > seen.length) blockText.set(id, mine);
      });
      cacheable += p.cacheableTokens;
    }
    expect(reused).toBeGreaterThan(300); // the trace reuses earlier blocks: the check above ran
    expect(cacheable).toBeGreaterThan(0);
    // Different ids give different blocks.
    const firstWords = [...blockText.values()].map((w) => w.slice(0, 16).join(' '));
    expect(new Set(firstWords).size).toBe(blockText.size);
  });

  it('shared-prefix: the same prefix text exactly, different right after it; other prefixes differ', async () => {
    const bank = new PromptBank(await prepare());
    const p = planLevel(level('shared-prefix:prefixes=3,prefix=1K,suffix=300'));
    const texts = Array.from({ length: 9 }, (_, i) => bank.prompt(p.plan(i).prompt).text);
    for (const t of texts) expect(served(t)).toBe(1324);
    const w = texts.map(wordsOf);
    for (let i = 3; i < 9; i++) {
      expect(w[i]!.slice(0, 1024)).toEqual(w[i - 3]!.slice(0, 1024));
      expect(w[i]![1024]).not.toBe(w[i - 3]![1024]);
    }
    expect(w[0]![0]).not.toBe(w[1]![0]);
    expect(w[1]![0]).not.toBe(w[2]![0]);
    expect(new Set(texts).size).toBe(9);
    // A suffix too short for the closing instruction leaves it out and still makes L + S.
    const short = planLevel(level('shared-prefix:prefixes=1,prefix=512,suffix=20')).plan(1).prompt;
    expect(served(bank.prompt(short).text)).toBe(532);
    expect(bank.prompt(short).text).not.toContain(CLOSING_INSTRUCTION);
  });

  it("multi-turn: turn k's prompt starts with turn k-1's whole conversation, as the chat template renders it", async () => {
    const bank = new PromptBank(await prepare());
    const p = planLevel(level('multi-turn:turns=4,system=300,message=120'));
    const answers = [1, 2, 3].map((t) => outputText('content', t * 7, 64)); // 64 sim tokens each
    let previous: { text: string; rendered: string } | undefined;
    for (let k = 1; k <= 4; k++) {
      const plan = p.plan(k - 1);
      expect([plan.turn, plan.conversation]).toEqual([k, 1]);
      const { text, messages } = bank.prompt(plan.prompt, answers.slice(0, k - 1));
      const roles = Array.from({ length: 2 * k - 1 }, (_, i) => (i % 2 ? 'assistant' : 'user'));
      expect(messages!.map((m) => m.role)).toEqual(['system', ...roles]);
      // The content the workload counts: S + kM + (k - 1)A, exactly.
      const content = messages!.reduce((n, m) => n + countTokens(m.content), 0);
      expect(content).toBe(plan.inputTokens);
      const rendered = renderChat(messages!);
      if (previous) {
        expect(rendered.startsWith(`${previous.rendered}\n${answers[k - 2]}`)).toBe(true);
        expect(text.startsWith(previous.text + answers[k - 2]!)).toBe(true);
        // What a prefix cache holds from turn k - 1 (its prompt and its answer) is what the workload counts.
        expect(plan.cacheableTokens).toBe(p.plan(k - 2).inputTokens + 64);
      }
      previous = { text, rendered };
    }
    // Another conversation shares the system prompt and nothing after it.
    const other = bank.prompt(p.plan(4).prompt).messages!;
    const first = bank.prompt(p.plan(0).prompt).messages!;
    expect(other[0]).toEqual(first[0]);
    expect(other[1]!.content.split(' ')[0]).not.toBe(first[1]!.content.split(' ')[0]);
  });

  it('lengths from a shape: every prompt exactly its drawn length, each unique', async () => {
    const bank = new PromptBank(await prepare());
    const p = planLevel(level('lengths:in=normal(2K,512),out=uniform(16,64)'));
    const plans = Array.from({ length: 200 }, (_, i) => p.plan(i));
    const texts = plans.map((r) => bank.prompt(r.prompt).text);
    texts.forEach((t, i) => expect(served(t)).toBe(plans[i]!.inputTokens));
    expect(new Set(texts).size).toBe(200);
    expect(new Set(plans.map((r) => r.inputTokens)).size).toBeGreaterThan(100);
  });
});

describe('the prompt bank against the sim over HTTP', () => {
  let sim: SimHandle | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });
  const noHw = { gpuName: undefined };
  const recipes: PromptRecipe[] = [
    { kind: 'unique', salt: 's', index: 1, tokens: 4096 },
    { kind: 'prefixed', salt: 's', prefix: 0, prefixTokens: 1024, index: 2, tokens: 1500 },
    { kind: 'blocks', salt: 's', ids: [0, 1, 2, 3], blockTokens: 512, tokens: 1800 },
  ];

  it.each([
    ['vllm', 'chat', 'tokenize'],
    ['trtllm', 'chat', 'tokenize'], // content-only tokenizer: the template from one probe
    ['vllm', 'completions', 'tokenize'],
    ['ollama', 'chat', 'calibration'], // no tokenizer: max_tokens 1 probes
  ] as const)(
    '%s %s: sized by %s, every prompt within 1% of its target as the server counts it',
    async (flavor, api, sizing) => {
      sim = await startSim({
        profile: 'tiny',
        flavor,
        overrides: { maxModelLen: 16_384, reasoningTokens: 0 },
      });
      const info = await probeTarget({ baseUrl: sim.baseUrl, hardware: noHw, detectLocalHardware: false });
      const warnings: string[] = [];
      const s = await preparePromptBank({
        runId: 'http',
        seed: 2,
        baseUrl: sim.baseUrl,
        model: info.model,
        api,
        ...(info.tokenize ? { tokenize: (t: string) => info.tokenize!(t, api) } : {}),
        ...(info.tokenizeCoversTemplate !== undefined
          ? { tokenizeCoversTemplate: info.tokenizeCoversTemplate }
          : {}),
        onWarning: (w) => warnings.push(w),
      });
      expect([s.sizing, s.exact, warnings]).toEqual([sizing, true, []]);
      const bank = new PromptBank(s);
      for (const r of recipes) {
        const n = await probePromptTokens(
          { baseUrl: sim.baseUrl, model: info.model, api },
          bank.prompt(r).text,
        );
        expect(n).toBe((r as { tokens: number }).tokens);
      }
    },
  );
});
