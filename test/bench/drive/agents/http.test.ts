import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from '../../../../src/bench/drive/agents/agent.js';
import { serveAgents, listenAddress, type AgentServer } from '../../../../src/bench/drive/agents/http-hub.js';
import { HttpLink } from '../../../../src/bench/drive/agents/http-link.js';
import { AgentHub } from '../../../../src/bench/drive/agents/hub.js';
import { PROTOCOL_VERSION } from '../../../../src/bench/drive/agents/protocol.js';
import { realClock } from '../../../../src/clock.js';
import { BenchRun } from '../../../../src/bench/run.js';
import { streamRequest } from '../../../../src/client/stream.js';
import { isBenchError } from '../../../../src/errors.js';
import type { RunResult } from '../../../../src/results/schema.js';
import { startSim, type SimHandle } from '../../../../src/sim/index.js';

// The coordinator's HTTP endpoint and the agent's link, in this process on 127.0.0.1: who may join, and one short
// run over two agents whose every chunk is the sim's truth. The same over real processes: test/integration/agents.
const TOKEN = 'run-token-for-tests-0123456789';

describe('the agents endpoint', () => {
  let hub: AgentHub;
  let server: AgentServer;
  beforeAll(async () => {
    hub = new AgentHub({ agents: 3, clock: realClock, timeoutMs: 5_000, waitMs: 1_000 });
    server = await serveAgents(hub, { host: '127.0.0.1', port: 0, token: TOKEN });
  });
  afterAll(async () => {
    hub.finish('complete');
    await server.close();
  });

  const hello = (index: number, agents = 3) => ({ protocol: PROTOCOL_VERSION, index, agents, host: 'test' });
  const on = { message: () => {}, lost: () => {} };

  it('takes only agents holding the run token, and says nothing more to the others', async () => {
    const r = await fetch(`${server.url}/agents/join`, { method: 'POST', body: JSON.stringify(hello(1)) });
    expect(r.status).toBe(401);
    expect(await r.text()).not.toContain(TOKEN);
    const wrong = new HttpLink(server.url, 'not-the-token');
    const e = await wrong.join(hello(1), on).catch((x: unknown) => x);
    expect(isBenchError(e) && e.code).toBe('COORDINATOR_UNREACHABLE');
    expect(String((e as Error).message)).toMatch(
      /refused this agent: this endpoint takes only agents holding/,
    );
    wrong.close();
    expect(hub.live()).toEqual([]);
  });

  it('refuses an agent started for another run shape, and takes the right one', async () => {
    const link = new HttpLink(server.url, TOKEN);
    const e = await link.join(hello(1, 4), on).catch((x: unknown) => x);
    expect(isBenchError(e) && (e as Error).message).toMatch(/--agents 4, this run has 3/);
    const e0 = await link.join(hello(0), on).catch((x: unknown) => x);
    expect(isBenchError(e0) && (e0 as Error).message).toMatch(/index 0 is not one of 1\.\.2/);
    await link.join(hello(2), on);
    expect(hub.live().map((m) => m.index)).toEqual([2]);
    const t = await link.time();
    expect(Math.abs(t.t1 - realClock.now())).toBeLessThan(5_000);
    expect(t.t2).toBeGreaterThanOrEqual(t.t1);
    link.close();
    for (let i = 0; i < 100 && hub.live().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(hub.live()).toEqual([]); // its connection closed: gone
  });

  it('listens where --coordinator says', () => {
    expect(listenAddress('http://127.0.0.1:7070')).toEqual({ host: '127.0.0.1', port: 7070 });
    expect(listenAddress('http://localhost:9')).toEqual({ host: '127.0.0.1', port: 9 });
    expect(listenAddress('http://bench-0.bench:7070')).toEqual({ host: '0.0.0.0', port: 7070 });
  });
});

describe('a run over two agents by HTTP', () => {
  let sim: SimHandle;
  beforeAll(async () => {
    sim = await startSim({
      profile: 'tiny',
      seed: 5,
      overrides: {
        decodeStepMs: [
          [1, 10],
          [16, 10],
        ],
      },
    });
  });
  afterAll(() => sim.close());

  it('measures every slot on its agent, each chunk as the truth says', { timeout: 60_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-agents-http-'));
    const hub = new AgentHub({ agents: 2, clock: realClock, timeoutMs: 5_000, waitMs: 20_000 });
    const server = await serveAgents(hub, { host: '127.0.0.1', port: 0, token: TOKEN });
    const link = new HttpLink(server.url, TOKEN);
    const agent = runAgent({
      index: 1,
      agents: 2,
      host: 'in-process',
      link,
      clock: realClock,
      stream: streamRequest,
      waitMs: 10_000,
    });
    try {
      const run = new BenchRun(
        {
          baseUrl: sim.baseUrl,
          out,
          runId: 'http-agents',
          agents: 2,
          contexts: [512],
          prefillContexts: [512],
          concurrency: [4],
          maxOutput: 40,
          duration: 1,
          rampTimeout: 3,
          settlePause: 0.1,
          reports: false,
        },
        { agents: hub, clientMonitor: () => undefined },
      );
      const { result } = await run.start();
      expect(await agent).toEqual({ cells: 1, runId: 'http-agents' });
      const cell = result.decode[0]!;
      expect(['Valid', 'Requests queued'], cell.queueEvidence).toContain(cell.status);
      expect(cell.agents!.count).toBe(2);
      expect(cell.agents!.clocks[0]!.slots).toBe(2);
      const lines = readFileSync(join(out, 'http-agents', 'requests.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { cell: string; phase: string; requestId: string; chunks: number[][] });
      const mine = lines.filter((l) => l.cell === 'decode 512x4' && l.phase !== 'warmup');
      expect(mine.some((l) => /-a1\w{4}-\d+$/.test(l.requestId))).toBe(true);
      expect(mine.some((l) => !/-a1\w{4}-\d+$/.test(l.requestId))).toBe(true);
      const truth = new Map(sim.truth().map((t) => [t.requestId, t]));
      let checked = 0;
      for (const l of mine) {
        const t = truth.get(l.requestId);
        if (!t) continue; // aborted at the close before the sim saw it
        expect(l.chunks.map((c) => c[1])).toEqual(t.chunks.slice(0, l.chunks.length).map((c) => c[1]));
        checked += 1;
      }
      expect(checked).toBeGreaterThan(4);
      const stored = JSON.parse(readFileSync(join(out, 'http-agents', 'result.json'), 'utf8')) as RunResult;
      expect(JSON.stringify(stored)).not.toContain(TOKEN);
    } finally {
      hub.finish('complete');
      link.close();
      await server.close();
    }
  });
});
