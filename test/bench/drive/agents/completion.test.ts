import { describe, expect, it } from 'vitest';
import { runAgent, type CoordinatorLink } from '../../../../src/bench/drive/agents/agent.js';
import { AgentHub, type AgentPort } from '../../../../src/bench/drive/agents/hub.js';
import {
  parseToAgent,
  PROTOCOL_VERSION,
  type FromAgent,
  type Hello,
  type ToAgent,
} from '../../../../src/bench/drive/agents/protocol.js';
import { isBenchError } from '../../../../src/errors.js';
import { virtualRig } from '../../virtual-run.js';

// How a run's end reaches the agents (docs/distributed.md "When something fails"): 'done' with the run's status.
// After a complete run every agent exits 0, however close behind 'done' the coordinator's connection ends; after
// any other end, or a coordinator gone mid-run, it waits --agent-wait and fails with one line saying which.

const WELCOME: ToAgent = {
  type: 'welcome',
  runId: 'r-1',
  agents: 3,
  cfg: { baseUrl: 'http://127.0.0.1:9/v1', api: 'chat', idPrefix: 'r-1-x' } as never,
  info: { model: 'm' } as never,
  timeoutMs: 10_000,
};

// A coordinator that says `script` to the agent the moment it joins, then ends the connection in the same tick (as
// a closing coordinator's last bytes and its end arrive together), and refuses every later join.
function scripted(script: ToAgent[]): CoordinatorLink & { joins: number } {
  const link = {
    joins: 0,
    async join(_hello: Hello, on: { message(m: ToAgent): void; lost(reason: string): void }) {
      link.joins += 1;
      if (link.joins > 1) throw new Error('ECONNREFUSED');
      queueMicrotask(() => {
        for (const m of script) {
          const wire = parseToAgent(JSON.parse(JSON.stringify(m)));
          if (!wire.ok) throw new Error(wire.error);
          on.message(wire.value);
        }
        on.lost('the coordinator closed the connection');
      });
    },
    send: async (_m: FromAgent[]) => undefined,
    time: async () => ({ t1: 0, t2: 0 }),
    close: () => undefined,
  };
  return link;
}

async function agentAgainst(link: CoordinatorLink) {
  const rig = virtualRig();
  const work = runAgent({
    index: 1,
    agents: 3,
    host: 'h1',
    link,
    clock: rig.clock,
    stream: () => Promise.reject(new Error('no requests here')),
    waitMs: 30_000,
  });
  const t0 = rig.clock.now();
  const r: { value?: Awaited<typeof work>; error?: unknown } = await rig.drive(work).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return { ...r, waitedMs: rig.clock.now() - t0 };
}

describe("the run's end, as the agents hear it", () => {
  it("'done' is a message of the wire: its status is required", () => {
    expect(parseToAgent({ type: 'done', status: 'complete' })).toEqual({
      ok: true,
      value: { type: 'done', status: 'complete' },
    });
    expect(parseToAgent({ type: 'done' }).ok).toBe(false);
  });

  it("'complete' with the connection's end right behind it: the agent is done, at once (exit 0)", async () => {
    // It once queued 'done' behind its other messages, took the end for a lost coordinator, waited --agent-wait
    // and exited 15.
    const link = scripted([WELCOME, { type: 'done', status: 'complete' }]);
    const r = await agentAgainst(link);
    expect(r).toEqual({ value: { cells: 0, runId: 'r-1' }, waitedMs: 0 });
    expect(link.joins).toBe(1);
  });

  it('a run that ended otherwise: the agent waits for a resumed coordinator, then fails saying so', async () => {
    const r = await agentAgainst(scripted([WELCOME, { type: 'done', status: 'failed' }]));
    expect(isBenchError(r.error) && r.error.code).toBe('COORDINATOR_UNREACHABLE');
    expect((r.error as Error).message).toBe(
      "agent 1: the coordinator's run ended failed, and no coordinator came back for 30 s (ECONNREFUSED).",
    );
    expect(r.waitedMs).toBeGreaterThanOrEqual(30_000);
  });

  it('a coordinator gone mid-run: the agent waits for it, then fails saying it lost it', async () => {
    const r = await agentAgainst(scripted([WELCOME]));
    expect((r.error as Error).message).toBe(
      'agent 1: lost the coordinator: the coordinator closed the connection, and no coordinator came back' +
        ' for 30 s (ECONNREFUSED).',
    );
  });
});

describe("the coordinator's side of the end", () => {
  const hello = (index: number, agents = 3): Hello => ({
    protocol: PROTOCOL_VERSION,
    index,
    agents,
    host: `h${index}`,
  });
  function port(log: ToAgent[], onClose?: () => void): AgentPort {
    return { send: (m) => log.push(m), close: () => onClose?.() };
  }

  it('after a complete run it waits for the agents to leave, and their leaving is no news', async () => {
    const rig = virtualRig();
    const notes: string[] = [];
    const hub = new AgentHub({
      agents: 3,
      clock: rig.clock,
      timeoutMs: 2_000,
      waitMs: 1_000,
      note: (l) => notes.push(l),
    });
    const one: ToAgent[] = [];
    const two: ToAgent[] = [];
    const p1 = port(one);
    const p2 = port(two);
    expect(hub.join(hello(1), p1)).toEqual({ ok: true });
    expect(hub.join(hello(2), p2)).toEqual({ ok: true });
    hub.finish('complete');
    expect(one.at(-1)).toEqual({ type: 'done', status: 'complete' });
    expect(two.at(-1)).toEqual({ type: 'done', status: 'complete' });
    const t0 = rig.clock.now();
    // Agent 1 leaves 3 ms after 'done', agent 2 at 40 ms: released() resolves at the last leaving, not the grace.
    rig.clock.setTimer(() => hub.gone(1, p1, 'closed its connection (its process ended, or the network)'), 3);
    rig.clock.setTimer(
      () => hub.gone(2, p2, 'closed its connection (its process ended, or the network)'),
      40,
    );
    await rig.drive(hub.released(5_000));
    expect(rig.clock.now() - t0).toBe(40);
    expect(hub.live()).toEqual([]);
    expect(notes.filter((n) => /closed its connection/.test(n))).toEqual([]);
    // An agent that comes after the end is told the run is complete, not refused (it would retry --agent-wait).
    const late: ToAgent[] = [];
    expect(hub.join(hello(2), port(late))).toEqual({ ok: true });
    expect(late).toEqual([{ type: 'done', status: 'complete' }]);
    expect(hub.live()).toEqual([]);
  });

  it('an agent that never leaves holds the endpoint for the grace only; after a failed run nobody is waited for', async () => {
    const rig = virtualRig();
    const hub = new AgentHub({ agents: 2, clock: rig.clock, timeoutMs: 2_000, waitMs: 1_000 });
    expect(hub.join(hello(1, 2), port([]))).toEqual({ ok: true });
    hub.finish('complete');
    const t0 = rig.clock.now();
    await rig.drive(hub.released(5_000));
    expect(rig.clock.now() - t0).toBe(5_000);

    const failed = new AgentHub({ agents: 2, clock: rig.clock, timeoutMs: 2_000, waitMs: 1_000 });
    expect(failed.join(hello(1, 2), port([]))).toEqual({ ok: true });
    failed.finish('failed');
    const t1 = rig.clock.now();
    await rig.drive(failed.released(5_000));
    expect(rig.clock.now() - t1).toBe(0);
    expect(failed.join(hello(1, 2), port([]))).toMatchObject({ ok: false, status: 503 });
  });
});
