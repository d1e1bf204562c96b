import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../../../src/bench/drive/agents/agent.js';
import { sleep } from '../../../../src/clock.js';
import { AgentHub } from '../../../../src/bench/drive/agents/hub.js';
import { skewedClock } from '../../../../src/bench/drive/agents/skew.js';
import { BenchRun, type BenchRunDeps, type RunOutcome } from '../../../../src/bench/run.js';
import { silentProgress } from '../../../../src/progress/sink.js';
import type { RunSettings } from '../../../../src/bench/settings.js';
import type { DecodeCell, RunResult } from '../../../../src/results/schema.js';
import type { TruthRecord } from '../../../../src/sim/truth.js';
import { memoryStream, virtualRig, virtualSettings, type VirtualRig } from '../../virtual-run.js';
import { MemoryLink, skewedStream } from './memory-link.js';

// One run over K agents in virtual time (docs/distributed.md): the real coordinator (BenchRun with an AgentHub) and
// K - 1 real agents (runAgent), each on its own clock, linked in memory through the wire schemas, all sending to
// the sim's engine. Every figure is checked against the sim's ground truth over the same window, which no code
// under test computes.

interface AgentSpec {
  offsetMs?: number; // the agent's clock reads true time + offset (+ drift per second since it started)
  driftMsPerS?: number;
  delay?: { out: number; back: number }; // one-way link delays, ms
}

interface Fleet {
  rig: VirtualRig;
  hub: () => AgentHub;
  restart(): AgentHub;
  links: MemoryLink[]; // index i - 1 is agent i
  stops: AbortController[];
  agents: Array<Promise<unknown>>;
}

function fleet(k: number, specs: AgentSpec[] = [], sim = {}): Fleet {
  const rig = virtualRig({ sim: { seed: 3, ...sim } });
  let hub = newHub(rig, k);
  const links: MemoryLink[] = [];
  const stops: AbortController[] = [];
  const agents: Array<Promise<unknown>> = [];
  for (let i = 1; i < k; i++) {
    const spec = specs[i - 1] ?? {};
    const base = rig.deps.clock!;
    const clock = skewedClock(base, spec.offsetMs ?? 0, spec.driftMsPerS ?? 0);
    const toAgent = (t: number) => t + (clock.now() - base.now()); // the skew now (drift moves it slowly)
    const link = new MemoryLink(() => hub, base, spec.delay);
    const stop = new AbortController();
    links.push(link);
    stops.push(stop);
    agents.push(
      runAgent({
        index: i,
        agents: k,
        host: `host-${i}`,
        link,
        clock,
        stream: skewedStream(memoryStream(rig.sim, rig.clock), toAgent),
        waitMs: 30_000,
        signal: stop.signal,
      }).catch((e: unknown) => e),
    );
  }
  return {
    rig,
    hub: () => hub,
    links,
    stops,
    agents,
    restart: () => (hub = newHub(rig, k)), // a restarted coordinator: a new hub at the same address
  };
}

function newHub(rig: VirtualRig, k: number): AgentHub {
  return new AgentHub({ agents: k, clock: rig.deps.clock!, timeoutMs: 2_000, waitMs: 30_000 });
}

async function runFleet(
  f: Fleet,
  settings: RunSettings,
  deps: Partial<BenchRunDeps> = {},
  o: { onStart?: (run: BenchRun) => void; withAgents?: boolean } = {},
) {
  const k = settings.agents ?? 1;
  const run = new BenchRun(settings, { ...f.rig.deps, ...(k > 1 ? { agents: f.hub() } : {}), ...deps });
  o.onStart?.(run);
  let outcome: RunOutcome | undefined;
  let error: unknown;
  const work = run.start().then(
    (o) => (outcome = o),
    (e: unknown) => (error = e),
  );
  await f.rig.drive(Promise.all([work, ...(o.withAgents === false ? [] : f.agents)]));
  const dir = join(settings.out, settings.runId!);
  const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
  const lines = readFileSync(join(dir, 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as {
          cell: string;
          requestId: string;
          phase: string;
          slot: number;
          endAtMs: number;
          errorKind?: string;
        },
    );
  return { outcome, error, result, lines };
}

const settings = (over: Partial<RunSettings> = {}): RunSettings =>
  virtualSettings(mkdtempSync(join(tmpdir(), 'lib-agents-')), {
    contexts: [1024],
    prefillContexts: [1024],
    concurrency: [1, 3, 8],
    maxOutput: 64,
    duration: 2,
    rampTimeout: 5,
    settlePause: 0.2,
    prefillRepeats: 1,
    ...over,
  });

// The truth's tokens whose chunk the sim sent in [open, close): what a perfect client counts in that window.
function truthTokens(truth: TruthRecord[], openMs: number, closeMs: number): number {
  let n = 0;
  for (const t of truth) for (const [at, k] of t.chunks) if (at >= openMs && at < closeMs) n += k;
  return n;
}

function checkAgainstTruth(cell: DecodeCell, truth: TruthRecord[], marginMs = 0) {
  const open = cell.windowOpenMs!;
  const close = cell.windowCloseMs!;
  const exact = truthTokens(truth, open, close);
  if (marginMs === 0) expect(cell.outputTokens, `${cell.concurrency}`).toBe(exact);
  else {
    expect(cell.outputTokens!).toBeGreaterThanOrEqual(truthTokens(truth, open + marginMs, close - marginMs));
    expect(cell.outputTokens!).toBeLessThanOrEqual(truthTokens(truth, open - marginMs, close + marginMs));
  }
  const truthRate = (exact * 1000) / (close - open);
  expect(Math.abs(cell.totalTokensPerS! / truthRate - 1)).toBeLessThan(0.01);
}

describe('one run over K agents (virtual time)', () => {
  for (const k of [1, 2, 4]) {
    it(`K = ${k}: every cell's tokens are the truth's over its window, from every agent`, async () => {
      const f = fleet(k);
      const s = settings({ agents: k });
      const { error, result, lines } = await runFleet(f, s);
      expect(error).toBeUndefined();
      expect(result.status).toBe('complete');
      expect(result.config.agents).toBe(k);
      const truth = f.rig.sim.truth.all();
      for (const cell of result.decode) {
        expect(cell.status, cell.queueEvidence).toBe('Valid');
        checkAgainstTruth(cell, truth);
        const n = cell.concurrency;
        const drivers = Math.min(k, n);
        if (k > 1) {
          expect(cell.agents!.count).toBe(drivers);
          expect(cell.agents!.clocks.map((c) => c.agent)).toEqual(
            Array.from({ length: drivers - 1 }, (_, i) => i + 1),
          );
          expect(cell.agents!.windowUncertaintyMs).toBeLessThan(1);
          expect(cell.agents!.clockFlag).toBeUndefined();
        } else expect(cell.agents).toBeUndefined();
        // every slot ran, each on the agent (s - 1) mod K says, and every request id is unique
        const mine = lines.filter((l) => l.cell === `decode 1024x${n}` && l.phase !== 'warmup');
        const ids = new Set(mine.map((l) => l.requestId));
        expect(ids.size).toBe(mine.length);
        for (const l of mine) {
          const agent = Number(/-a(\d)\w{4}-\d+$/.exec(l.requestId)?.[1] ?? 0);
          expect((l.slot - 1) % drivers, l.requestId).toBe(agent);
        }
        expect(new Set(mine.map((l) => l.slot)).size).toBe(n);
      }
    });
  }

  it('agents on wrong clocks (+50 ms, -50 ms, drifting 1 ms/s) over lopsided links: right to the uncertainty', async () => {
    const delay = { out: 0.3, back: 1.5 }; // uncertainty 0.9 ms, estimate off by 0.6 ms
    const f = fleet(4, [
      { offsetMs: 50, delay },
      { offsetMs: -50, delay },
      { offsetMs: -20, driftMsPerS: 1, delay },
    ]);
    const { error, result } = await runFleet(f, settings({ agents: 4, concurrency: [4, 8] }));
    expect(error).toBeUndefined();
    const truth = f.rig.sim.truth.all();
    for (const cell of result.decode) {
      expect(cell.status).toBe('Valid');
      const a = cell.agents!;
      expect(a.windowUncertaintyMs).toBeCloseTo(0.9, 2);
      checkAgainstTruth(cell, truth, a.windowUncertaintyMs);
      // The offsets recorded are the injected ones (coordinator = agent - skew), to their uncertainty.
      const [one, two, three] = a.clocks;
      expect(Math.abs(one!.before!.offsetMs - -50)).toBeLessThanOrEqual(0.9 + 1e-6);
      expect(Math.abs(two!.before!.offsetMs - 50)).toBeLessThanOrEqual(0.9 + 1e-6);
      // The drifting clock moved between the estimates before and after the cell, 1 ms for every second.
      const moved = three!.before!.offsetMs - three!.after!.offsetMs;
      expect(moved).toBeGreaterThan(2); // the cell (ramp, 2 s window, records) lasts over 2 s
      expect(moved).toBeLessThan(10);
    }
  });

  it('a coordinator whose timers run late (a busy host): every agent drives its slots to the real close', async () => {
    // Each timer of the coordinator fires 25 ms late, so its window closes 25 ms after the instant it announced.
    // An agent that closed on its own clock at that instant stopped its slots 25 ms early: the server ran N / K
    // streams at the window's end and the cell lost those tokens (in real time, the chunks then in flight
    // went missing from the window: 2 of ~800, test/integration/agents.test.ts). They close on the 'close'.
    const f = fleet(4);
    const base = f.rig.deps.clock!;
    const late = {
      now: () => base.now(),
      setTimer: (fn: () => void, ms: number) => base.setTimer(fn, ms + 25),
    };
    const s = settings({ agents: 4, concurrency: [4, 8] });
    const { error, result, lines } = await runFleet(f, s, { clock: late });
    expect(error).toBeUndefined();
    const truth = f.rig.sim.truth.all();
    for (const cell of result.decode) {
      expect(cell.status).toBe('Valid');
      expect(cell.windowCloseMs! - cell.windowOpenMs!).toBe(2_025);
      checkAgainstTruth(cell, truth);
      const aborted = lines.filter(
        (l) => l.cell === `decode 1024x${cell.concurrency}` && l.errorKind === 'aborted',
      );
      expect(aborted).toHaveLength(cell.concurrency); // every slot in flight at the close, on every agent
      for (const l of aborted) expect(l.endAtMs, l.requestId).toBeGreaterThanOrEqual(cell.windowCloseMs!);
    }
  });

  it('flags a clock known too roughly for the window', async () => {
    const f = fleet(2, [{ delay: { out: 15, back: 15 } }]); // ±15 ms against a 2 s window: 1.5% of its tokens
    const { result } = await runFleet(f, settings({ agents: 2, concurrency: [2] }));
    const cell = result.decode[0]!;
    expect(cell.agents!.windowUncertaintyMs).toBeCloseTo(15, 3);
    expect(cell.agents!.clockFlag).toMatch(/agent 1 \(host-1\)'s clock is known to ±15\.0 ms only/);
    expect(result.warnings.some((w) => w.includes('decode 1K x2') && w.includes('±15.0 ms'))).toBe(true);
    expect(cell.status).toBe('Valid'); // a flag, not a verdict
  });
});

describe('agents that fail mid-cell (virtual time)', () => {
  for (const how of ['kill', 'freeze'] as const) {
    it(`an agent that ${how === 'kill' ? 'dies' : 'falls silent'} fails that cell, named; the others go on`, async () => {
      const f = fleet(3);
      const s = settings({ agents: 3, concurrency: [3, 6, 9] });
      const clock = f.rig.deps.clock!;
      // 1.5 s after the 6-stream cell's ramp begins: about 1.3 s into its 2 s window
      const progress = {
        ...silentProgress,
        phase: (label: string) => {
          if (!label.startsWith('decode 1K x6')) return;
          void sleep(clock, 1_500).then(() => {
            // the process does nothing more either way (its loops stop); killed, its connection closes too
            if (how === 'kill') f.links[1]!.kill();
            else f.links[1]!.freeze();
            f.stops[1]!.abort();
          });
        },
      };
      const { error, result } = await runFleet(f, s, { progress });
      expect(error).toBeUndefined();
      expect(result.status).toBe('complete');
      const [c3, c6, c9] = result.decode;
      expect(c3!.status).toBe('Valid');
      expect(c6!.status).toBe('Failed');
      const why = how === 'kill' ? 'closed its connection' : 'fell silent';
      expect(c6!.error).toMatch(new RegExp(`^agent 2 \\(host-2\\) ${why}.* s into the window of 1K x6$`));
      expect(c6!.agents!.lost).toBe(c6!.error);
      expect(c6!.totalTokensPerS).toBeNull();
      // killed: known at once; silent: after the 2 s timeout (checked every 0.5 s)
      const lostAtS = Number(/ ([\d.]+) s into/.exec(c6!.error!)![1]);
      if (how === 'kill') expect(lostAtS).toBeLessThan(1.5);
      else expect(lostAtS).toBeGreaterThan(2.5);
      // the next cell is dealt over the two agents left, and measured whole
      expect(c9!.status).toBe('Valid');
      expect(c9!.agents!.count).toBe(2);
      checkAgainstTruth(c9!, f.rig.sim.truth.all());
    });
  }
});

describe('a coordinator restarted with --resume (virtual time)', () => {
  it('continues the run with the agents that waited for it', async () => {
    const f = fleet(3);
    const s = settings({ agents: 3, concurrency: [3, 6, 9] });
    const clock = f.rig.deps.clock!;
    let run: BenchRun | undefined;
    const progress = {
      ...silentProgress,
      phase: (label: string) => {
        if (label.startsWith('decode 1K x6')) void sleep(clock, 1_000).then(() => run?.interrupt());
      },
    };
    const first = await runFleet(f, s, { progress }, { onStart: (r) => (run = r), withAgents: false });
    expect(first.result.status).toBe('interrupted');
    expect(first.result.decode.map((c) => c.concurrency)).toEqual([3]);
    f.restart();
    const { error, result } = await runFleet(f, { ...s, resume: join(s.out, s.runId!) });
    expect(error).toBeUndefined();
    expect(result.status).toBe('complete');
    const truth = f.rig.sim.truth.all();
    expect(result.decode.map((c) => [c.concurrency, c.status, c.agents?.count])).toEqual([
      [3, 'Valid', 3],
      [6, 'Valid', 3],
      [9, 'Valid', 3],
    ]);
    for (const cell of result.decode) checkAgainstTruth(cell, truth);
    // both agents served the run to its end: 1K x3, the interrupted x6, then x6 and x9 again
    expect(await Promise.all(f.agents)).toEqual([
      { cells: 4, runId: 'virtual' },
      { cells: 4, runId: 'virtual' },
    ]);
  });
});
