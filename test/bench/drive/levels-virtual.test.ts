import { describe, expect, it } from 'vitest';
import { runAgent } from '../../../src/bench/drive/agents/agent.js';
import { AgentHub } from '../../../src/bench/drive/agents/hub.js';
import type { Sent } from '../../../src/bench/drive/sender.js';
import type { SessionsOn } from '../../../src/bench/run-level.js';
import { planLevel } from '../../../src/load/index.js';
import type { TruthRecord } from '../../../src/sim/truth.js';
import { levelRig, levelRun, memoryStream, openLevel, type LevelRig } from '../virtual-run.js';
import { MemoryLink } from './agents/memory-link.js';

// Load levels through the real session loop on the sim's engine in virtual time (docs/workloads.md "Load
// models"): the schedule is kept exactly, the in-flight cap holds arrivals and never lets more go, a conversation's
// next turn carries the answer its last one got. Every expected value comes from the level's plan (src/load) or
// the sim's truth log, which no code under test computes.
const truthById = (truth: readonly TruthRecord[]) =>
  new Map(truth.flatMap((t) => (t.requestId ? [[t.requestId, t] as const] : [])));

// The most requests in flight at once, from each one's [start, end): ends before starts at the same instant (a
// cap lets the next one go the moment one ends).
function mostInFlight(spans: ReadonlyArray<[number, number]>): number {
  const events = spans.flatMap(([a, b]) => [
    [a, 1],
    [b, -1],
  ]) as Array<[number, number]>;
  events.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of events) most = Math.max(most, (now += d));
  return most;
}

describe('an open level in virtual time', () => {
  it('sends every arrival at its scheduled instant (lag 0) and tags each request with its session', async () => {
    const r = await levelRig();
    const o = { warmupMs: 500, durationMs: 2_000 };
    const level = openLevel({ workload: 'fixed', rate: 20, contextTokens: 300, maxOutput: 8, ...o });
    const run = await r.run(levelRun(level, r.bank, o));
    const plan = planLevel(level);
    const starts = plan.startsMs!;
    expect(starts.length).toBeGreaterThan(30); // ~50 arrivals in 2.5 s at 20/s
    expect(run.window).toEqual({ openMs: run.zeroMs + 500, closeMs: run.zeroMs + 2_500 });
    expect(run.drainTimedOut).toBe(false);
    // every arrival of the horizon, once, each the plan's request
    const bySession = new Map(run.sent.map((s) => [s.spec.session!, s]));
    expect(run.sent).toHaveLength(starts.length);
    expect([...bySession.keys()].sort((a, b) => a - b)).toEqual(starts.map((_, i) => i + 1));
    const truth = truthById(r.rig.sim.truth.all());
    for (const [session, s] of bySession) {
      const p = plan.plan(plan.indexOf(session, 1));
      const scheduled = run.zeroMs + starts[session - 1]!;
      expect(s.spec).toMatchObject({
        cell: level.key,
        level: level.key,
        session,
        turn: 1,
        slot: session,
        scheduledAtMs: scheduled,
        inputTarget: p.inputTokens,
        contextTokens: 300,
        cacheableTokens: 0,
        phase: scheduled >= run.window.openMs ? 'window' : 'warmup',
      });
      expect(s.spec.releasedAtMs).toBeUndefined(); // no cap
      expect(s.record.sentAtMs).toBe(scheduled); // lag 0 in virtual time
      expect(truth.get(s.requestId)!.arrivalMs).toBe(scheduled); // the sim saw it then
      expect(s.record.ok).toBe(true);
      expect(s.record.promptTokens).toBe(300); // the bank's unique prompt, exactly its target
    }
    expect(run.sent.filter((s) => s.spec.phase === 'warmup').length).toBeGreaterThan(3);
  });

  it('holds arrivals at --max-in-flight: released in order as requests end, never more than M in flight', async () => {
    const r = await levelRig();
    const o = { warmupMs: 0, durationMs: 1_000, maxInFlight: 2 };
    // 100 arrivals a second, each ~100 ms long (50 tokens, 2 ms steps): about 10 would be in flight uncapped
    const level = openLevel({
      workload: 'fixed',
      rate: 100,
      arrival: 'constant',
      contextTokens: 64,
      maxOutput: 50,
      ...o,
    });
    const run = await r.run(levelRun(level, r.bank, o));
    const sent = [...run.sent].sort((a, b) => a.spec.session! - b.spec.session!);
    expect(sent.length).toBeGreaterThan(10);
    const spans = sent.map((s) => [s.spec.releasedAtMs!, s.record.endAtMs] as [number, number]);
    expect(mostInFlight(spans)).toBe(2);
    // The sim, independently: never more than 2 requests between arrival and end.
    const truth = [...truthById(r.rig.sim.truth.all()).values()];
    expect(mostInFlight(truth.map((t) => [t.arrivalMs, t.endMs]))).toBe(2);
    for (const s of sent) {
      expect(s.spec.releasedAtMs!).toBeGreaterThanOrEqual(s.spec.scheduledAtMs!);
      expect(s.record.sentAtMs).toBe(s.spec.releasedAtMs); // sent the moment it was let go
    }
    expect(sent.filter((s) => s.spec.releasedAtMs! > s.spec.scheduledAtMs!).length).toBeGreaterThan(5);
    // arrivals go in the order they came
    for (let i = 1; i < sent.length; i++)
      expect(sent[i]!.spec.releasedAtMs!).toBeGreaterThanOrEqual(sent[i - 1]!.spec.releasedAtMs!);
  });

  it("sends a conversation's second turn with the first turn's answer in it", async () => {
    const r = await levelRig();
    const o = { warmupMs: 0, durationMs: 1_000 };
    const level = openLevel({
      workload: 'multi-turn:turns=2,message=64,think=50ms',
      rate: 5,
      maxOutput: 12,
      ...o,
    });
    const run = await r.run(levelRun(level, r.bank, o));
    const sessions = new Set(run.sent.map((s) => s.spec.session!));
    let both = 0;
    for (const session of sessions) {
      const [one, two] = run.sent
        .filter((s) => s.spec.session === session)
        .sort((a, b) => a.spec.turn! - b.spec.turn!) as [Sent, Sent | undefined];
      expect(one.spec.turn).toBe(1);
      // no turn goes after the close: a conversation that reached it stops there
      if (!two) {
        expect(one.record.endAtMs + 50).toBeGreaterThanOrEqual(run.window.closeMs);
        continue;
      }
      both += 1;
      expect(two.spec.turn).toBe(2);
      const answer = r.answers.get(one.requestId)!;
      expect(answer.length).toBeGreaterThan(0);
      const first = r.bodies.get(one.requestId)!.messages as Array<{ role: string; content: string }>;
      const second = r.bodies.get(two.requestId)!.messages as Array<{ role: string; content: string }>;
      expect(second.slice(0, 2)).toEqual([...first, { role: 'assistant', content: answer }]);
      expect(second[2]!.role).toBe('user');
      // the second turn is scheduled its think time after the first one's end, and sent then
      expect(two.spec.scheduledAtMs).toBe(one.record.endAtMs + 50);
      expect(two.record.sentAtMs).toBe(two.spec.scheduledAtMs);
      // the records crossing to the caller do not carry the answers
      expect(one.record.text).toBeUndefined();
    }
    expect(both).toBeGreaterThan(1);
  });
});

describe('other levels in virtual time', () => {
  it('replays a trace at its scaled timestamps, ties and all', async () => {
    const r = await levelRig();
    const o = { warmupMs: 0, durationMs: 1_000 };
    const level = {
      ...openLevel({ workload: 'lengths:in=const(120),out=const(4)', rate: 1, maxOutput: 4, ...o }),
      key: 'trace',
      load: { model: 'trace' as const, timeScale: 2, timestampsMs: [0, 100, 100, 250, 900, 2_400] },
    };
    const run = await r.run(levelRun(level, r.bank, o));
    const sent = [...run.sent].sort((a, b) => a.spec.session! - b.spec.session!);
    // offsets 0, 50, 50, 125, 450 (1200 falls after the 1 s window's close: never sent)
    expect(sent.map((s) => s.record.sentAtMs - run.zeroMs)).toEqual([0, 50, 50, 125, 450]);
    expect(sent.map((s) => s.record.promptTokens)).toEqual([120, 120, 120, 120, 120]);
  });

  it('ends a conversation at its failed turn, with no wait after it', async () => {
    const r = await levelRig({ faults: '500' }); // every request answers HTTP 500
    const o = { warmupMs: 0, durationMs: 1_000 };
    const level = openLevel({ workload: 'multi-turn:turns=3,message=32', rate: 8, maxOutput: 4, ...o });
    const run = await r.run(levelRun(level, r.bank, o));
    const arrivals = planLevel(level).startsMs!.length;
    expect(run.sent).toHaveLength(arrivals); // each conversation's first turn, and nothing after it
    for (const s of run.sent) expect([s.spec.turn, s.record.error?.kind]).toEqual([1, 'http_status']);
    expect(run.drainTimedOut).toBe(false);
    expect(r.rig.clock.now()).toBe(run.window.closeMs); // no back-off held a session past the close
  });

  it('drains a scheduled level for the drain timeout, then aborts what still runs', async () => {
    const r = await levelRig();
    const o = { warmupMs: 0, durationMs: 500 };
    // 2,000 tokens at 2 ms a step: each request runs about 4 s, past the close and the 1 s drain
    const level = openLevel({
      workload: 'fixed',
      rate: 10,
      arrival: 'constant',
      contextTokens: 64,
      maxOutput: 2_000,
      ...o,
    });
    const run = await r.run({ ...levelRun(level, r.bank, o), drainTimeoutMs: 1_000 });
    expect(run.drainTimedOut).toBe(true);
    expect(run.sent).toHaveLength(5); // at 0, 100, ..., 400 ms
    for (const s of run.sent) {
      expect(s.record.error?.kind).toBe('aborted');
      expect(s.record.endAtMs).toBe(run.window.closeMs + 1_000);
    }
    expect(r.rig.sim.sessions.size).toBe(0);
  });

  it('runs a closed level of another workload: each turn a new request of it, tagged', async () => {
    const r = await levelRig();
    const level = {
      ...openLevel({
        workload: 'shared-prefix:prefixes=2,prefix=256,suffix=64',
        rate: 1,
        maxOutput: 10,
        warmupMs: 0,
        durationMs: 0,
      }),
      key: 'shared-prefix@3',
      load: { model: 'closed' as const, concurrency: 3 },
    };
    const run = await r.run({
      ...levelRun(level, r.bank, { warmupMs: 0, durationMs: 400 }),
      rampTimeoutMs: 1_000,
    });
    expect(run.rampTimedOut).toBe(false);
    const plan = planLevel(level);
    for (const session of [1, 2, 3]) {
      const mine = run.sent
        .filter((s) => s.spec.session === session)
        .sort((a, b) => a.spec.turn! - b.spec.turn!);
      expect(mine.length).toBeGreaterThan(3);
      expect(mine.map((s) => s.spec.turn)).toEqual(mine.map((_, i) => i + 1));
      for (const s of mine) {
        const p = plan.plan(plan.indexOf(session, s.spec.turn!));
        expect([s.spec.concurrency, s.spec.inputTarget, s.spec.cacheableTokens]).toEqual([
          3,
          320,
          p.cacheableTokens,
        ]);
        if (s.record.ok) expect(s.record.promptTokens).toBe(320);
      }
    }
    // the first requests meet cold prefixes, later ones a prefix sent before: the sim served it from its cache
    // (whole blocks of it: 240 of the 256 at 16-token blocks)
    const later = run.sent.filter((s) => s.record.ok && s.spec.cacheableTokens! > 0);
    expect(later.length).toBeGreaterThan(5);
    const truth = truthById(r.rig.sim.truth.all());
    for (const s of later) expect(truth.get(s.requestId)!.cachedTokens).toBeGreaterThanOrEqual(240);
  });
});

// K - 1 real agents (runAgent) on the rig's clock, linked to a hub in memory through the wire schemas, the hub
// opened as a run opens it: the level's sessions go over the coordinator and the agents.
function agentsOf(r: LevelRig, k: number): { sessionsOn: SessionsOn; done(): Promise<unknown> } {
  const clock = r.rig.clock;
  const hub = new AgentHub({ agents: k, clock, timeoutMs: 2_000, waitMs: 30_000 });
  const agents = Array.from({ length: k - 1 }, (_, i) =>
    runAgent({
      index: i + 1,
      agents: k,
      host: `host-${i + 1}`,
      link: new MemoryLink(() => hub, clock),
      clock,
      stream: memoryStream(r.rig.sim, clock),
      waitMs: 30_000,
    }),
  );
  const { cfg, info } = r.sender.workerParts();
  const { apiKey: _key, ...shared } = cfg;
  hub.open({ runId: 'levels', cfg: shared, info });
  return {
    sessionsOn: (spec) => hub.sessions(r.sender, clock, spec, undefined),
    done: () => {
      hub.finish('complete');
      return r.rig.drive(Promise.all(agents));
    },
  };
}

// What a level sent, by session and turn, with each one's schedule as an offset from the level's zero.
const sessionTurns = (run: Awaited<ReturnType<LevelRig['run']>>) =>
  run.sent
    .map((s) => `${s.spec.session}.${s.spec.turn} @${(s.spec.scheduledAtMs ?? NaN) - run.zeroMs}`)
    .sort();

describe('an open level over agents (virtual time)', () => {
  it('gives the same sessions and turns, on the same schedule, as in one thread; each on its agent', async () => {
    const o = { warmupMs: 200, durationMs: 1_500 };
    const level = openLevel({
      workload: 'multi-turn:turns=2,message=48,think=20ms',
      rate: 12,
      maxOutput: 6,
      ...o,
    });
    const one = await levelRig();
    const alone = await one.run(levelRun(level, one.bank, o));
    const two = await levelRig();
    const agents = agentsOf(two, 2);
    const split = await two.run(levelRun(level, two.bank, o), agents.sessionsOn);
    expect(await agents.done()).toEqual([{ cells: 1, runId: 'levels' }]);
    expect(sessionTurns(alone).length).toBeGreaterThan(20);
    expect(sessionTurns(alone).filter((x) => x.includes('.2 ')).length).toBeGreaterThan(5);
    expect(sessionTurns(split)).toEqual(sessionTurns(alone));
    expect(split.agents?.remotes.map((a) => a.agent)).toEqual([1]);
    for (const s of split.sent) {
      const agent = /-a1\w{4}-\d+$/.test(s.requestId) ? 1 : 0;
      expect((s.spec.session! - 1) % 2, s.requestId).toBe(agent);
      expect(s.record.sentAtMs).toBe(s.spec.scheduledAtMs); // the agent's clock is the coordinator's here
    }
    expect(split.sent.some((s) => /-a1/.test(s.requestId))).toBe(true);
  });
});
