import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../../src/clock.js';
import { streamRequest } from '../../../src/client/stream.js';
import type { PromptSource } from '../../../src/bench/drive/context.js';
import { runDecodeCell, type DecodeCellRun } from '../../../src/bench/decode-cell.js';
import { Sender } from '../../../src/bench/drive/sender.js';
import { runLevel } from '../../../src/bench/run-level.js';
import { preparePromptBank } from '../../../src/prompts/index.js';
import { startSim, type SimHandle, type TruthRecord } from '../../../src/sim/index.js';
import { probeTarget } from '../../../src/target/probe.js';
import { levelRun, openLevel } from '../virtual-run.js';

// Same sim seed, same cell: one thread and two worker threads both give exact token counts (every received chunk
// equals the sim's ground truth for that request) over every slot.
describe('decode cell on worker threads', () => {
  let sim: SimHandle;
  const prompts: PromptSource = {
    prompt: async (ctx, slot) => ({ text: `slot ${slot} `.repeat(Math.ceil(ctx / 3)), estTokens: ctx }),
  };
  const spec = { contextTokens: 200, concurrency: 6, maxOutput: 40, duration: 1.5, rampTimeout: 3 };

  beforeAll(async () => {
    sim = await startSim({
      profile: 'tiny',
      seed: 7,
      overrides: {
        decodeStepMs: [
          [1, 10],
          [16, 10],
        ],
      },
    });
  });
  afterAll(() => sim.close());

  async function cell(workers: number, prefix: string): Promise<DecodeCellRun> {
    const info = await probeTarget({ baseUrl: sim.baseUrl });
    const sender = new Sender(
      { baseUrl: sim.baseUrl, api: 'chat', ignoreEos: true, sampling: {}, idPrefix: prefix },
      info,
      prompts,
      streamRequest,
      realClock,
    );
    return runDecodeCell(sender, realClock, { ...spec, workers }, undefined, new AbortController().signal);
  }

  function checkAgainstTruth(run: DecodeCellRun, truth: Map<string, TruthRecord>) {
    const ids = new Set<string>();
    const delays: number[] = [];
    for (const s of run.sent) {
      expect(ids.has(s.requestId)).toBe(false);
      ids.add(s.requestId);
      const t = truth.get(s.requestId);
      // A request sent just before the close can be aborted before the sim saw it.
      if (!t && s.record.error?.kind === 'aborted' && s.record.chunks.length === 0) continue;
      expect(t, s.requestId).toBeDefined();
      const got = s.record.chunks.map((c) => c[1]);
      expect(got).toEqual(t!.chunks.slice(0, got.length).map((c) => c[1]));
      if (s.record.ok) {
        expect(s.record.outputTokens).toBe(spec.maxOutput);
        expect(t!.outputTokens).toBe(spec.maxOutput);
      }
      for (let i = 0; i < got.length; i++) delays.push(s.record.chunks[i]![0] - t!.chunks[i]![0]);
    }
    // One clock (epoch ms in every thread): chunks arrive after the sim stamped them, mostly. The sim stamps just
    // after its write, so a worker thread can see a chunk before a busy main thread stamps it. How soon after
    // is the machine's business: `npm run bench:fidelity -- --workers=2` measures it.
    delays.sort((a, b) => a - b);
    expect(delays[Math.floor(delays.length / 2)]!).toBeGreaterThan(-1);
    const slots = new Set(run.sent.map((s) => s.spec.slot));
    expect([...slots].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    for (let i = 1; i < run.sent.length; i++)
      expect(run.sent[i]!.record.endAtMs).toBeGreaterThanOrEqual(run.sent[i - 1]!.record.endAtMs);
  }

  it('one thread and two workers: exact counts over every slot', async () => {
    const one = await cell(1, 'single');
    const two = await cell(2, 'workers');
    // The sim records an aborted request when it notices the closed socket, a moment after the client aborted.
    const wanted = [...one.sent, ...two.sent]
      .filter((s) => s.record.chunks.length > 0)
      .map((s) => s.requestId);
    const deadline = Date.now() + 5_000;
    let truth = new Map<string, TruthRecord>();
    for (;;) {
      truth = new Map(sim.truth().flatMap((t) => (t.requestId ? [[t.requestId, t] as const] : [])));
      if (wanted.every((id) => truth.has(id)) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    checkAgainstTruth(one, truth);
    checkAgainstTruth(two, truth);
    expect(two.sent.some((s) => /^workers-c\d+w1-/.test(s.requestId))).toBe(true);
    expect(two.sent.some((s) => /^workers-c\d+w2-/.test(s.requestId))).toBe(true);
    expect(two.rampTimedOut).toBe(false);
    expect(two.sent.some((s) => s.spec.phase === 'window')).toBe(true);
    // The window is as long as asked (a late timer makes it longer, never shorter) and both runs measured in it.
    for (const run of [one, two]) {
      expect(run.window.closeMs - run.window.openMs).toBeGreaterThanOrEqual(spec.duration * 1000 - 1);
      const inWindow = run.sent.flatMap((s) =>
        s.record.chunks.filter(([t]) => t >= run.window.openMs && t < run.window.closeMs),
      );
      expect(inWindow.length).toBeGreaterThan(spec.concurrency);
    }
  }, 30_000);

  // An open level over two workers: each builds its share's plans from the spec and keeps its own schedule.
  it('an open level on two workers: the same sessions, on the same schedule, each on its worker', async () => {
    const info = await probeTarget({ baseUrl: sim.baseUrl });
    const bank = await preparePromptBank({
      runId: 'workers',
      seed: 3,
      baseUrl: sim.baseUrl,
      model: info.model,
      api: 'chat',
      ...(info.tokenize ? { tokenize: (t: string) => info.tokenize!(t, 'chat') } : {}),
    });
    const o = { warmupMs: 300, durationMs: 1_500 };
    const level = openLevel({
      workload: 'multi-turn:turns=2,message=40,think=30ms',
      rate: 10,
      maxOutput: 8,
      ...o,
    });
    const run = (workers: number, prefix: string) =>
      runLevel(
        new Sender(
          { baseUrl: sim.baseUrl, api: 'chat', ignoreEos: true, sampling: {}, idPrefix: prefix },
          info,
          prompts,
          streamRequest,
          realClock,
        ),
        realClock,
        { ...levelRun(level, bank, o), workers },
        undefined,
        new AbortController().signal,
      );
    const one = await run(1, 'alone');
    const two = await run(2, 'split');
    const turns = (r: typeof one) => r.sent.map((s) => `${s.spec.session}.${s.spec.turn}`).sort();
    const firsts = (r: typeof one) =>
      r.sent
        .filter((s) => s.spec.turn === 1)
        .map((s) => `${s.spec.session} @${s.spec.scheduledAtMs! - r.zeroMs}`);
    expect(turns(one).length).toBeGreaterThan(10);
    // A second turn goes only where the first ended before the close: on a busy machine that can differ by one.
    expect(firsts(two).sort()).toEqual(firsts(one).sort());
    for (const s of two.sent) {
      expect(s.record.ok, s.requestId).toBe(true);
      const worker = Number(/w(\d)-\d+$/.exec(s.requestId)![1]);
      expect((s.spec.session! - 1) % 2, s.requestId).toBe(worker - 1);
      // sent at its schedule, as well as the machine allows
      expect(s.record.sentAtMs - s.spec.scheduledAtMs!).toBeGreaterThanOrEqual(0);
    }
    expect(new Set(two.sent.map((s) => /w(\d)-/.exec(s.requestId)![1]))).toEqual(new Set(['1', '2']));
  }, 30_000);
});
