import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchRun } from '../../src/bench/run.js';
import { toRunSettings } from '../../src/cli/run-settings.js';
import { withDefaults, type Options } from '../../src/config/options.js';
import { silentProgress } from '../../src/progress/sink.js';
import { renderSweep } from '../../src/report/sweep.js';
import { sweepModel } from '../../src/report/sweep-model.js';
import { stripAnsi } from '../../src/report/text.js';
import type { ServiceLevel } from '../../src/results/schema.js';
import { loadSweep } from '../../src/results/sweep-io.js';
import { VirtualClock } from '../../src/sim/clock.js';
import type { SimContext } from '../../src/sim/context.js';
import { createSimContext } from '../../src/sim/server.js';
import { parseServiceLevel } from '../../src/stats/slo.js';
import { prepareSweep, sweepPlan } from '../../src/sweep/prepare.js';
import type { ExitInfo, ServerHandle } from '../../src/sweep/server-process.js';
import { Sweep } from '../../src/sweep/sweep.js';
import { drive, simRunDeps, VIRTUAL_START_MS } from '../bench/virtual-run.js';

// The whole sweep loop in virtual time (docs/sweep.md): each configuration's "server" is the sim's engine with
// that configuration's seats, started, judged ready and stopped through the sweep's seams, measured by the real
// runner on one virtual clock. The tiny profile at 20 ms a step: a 64-token answer lives ~1.3 s, so a request
// that queues behind four seats waits about that long for its first token.

const level = (text: string): ServiceLevel => parseServiceLevel(text) as ServiceLevel;

// A server in memory: it never exits on its own, and stops at once.
function memoryServer(pid: number): ServerHandle {
  const never = new Promise<ExitInfo>(() => {});
  return {
    pid,
    startTicks: undefined,
    exited: never,
    gone: never,
    exitedWith: undefined,
    tail: () => [],
    note: () => {},
    stop: async () => ({ forced: false, lingering: 0 }),
    killNow: () => {},
  };
}

async function virtualSweep(params: string, over: Partial<Options<'sweep'>> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'sweep-virtual-'));
  const serveParams = join(dir, 'serve.yaml');
  writeFileSync(serveParams, params);
  const options = withDefaults<'sweep', Options<'sweep'>>('sweep', {
    serveCmd: 'llm-inference-bench sim --port {port}',
    serveParams,
    out: dir,
    runId: 'v',
    contexts: [1024],
    prefillContexts: [1024],
    concurrency: [2, 4, 8],
    maxOutput: 64,
    duration: 4,
    metricsInterval: 0.5,
    reports: false,
    ...over,
  } as Options<'sweep'>);
  const clock = new VirtualClock(VIRTUAL_START_MS);
  const prepared = prepareSweep(options, new Set(), new Date(clock.now()).toISOString());
  const sims = new Map<number, SimContext>(); // by port
  let nextPort = 20_000;
  const said: string[] = [];
  const sweep = new Sweep(
    sweepPlan(prepared, (o) => toRunSettings(o, undefined), undefined),
    {
      say: (line) => said.push(line),
      progress: () => silentProgress,
      clock,
      freePort: async () => nextPort++,
      launch: (_cmd, o) => {
        const seats = Number(o.server.params['max-num-seqs']);
        const overrides = {
          maxNumSeqs: seats,
          decodeStepMs: [
            [1, 20],
            [16, 20],
          ] as Array<[number, number]>,
        };
        sims.set(o.port, createSimContext({ profile: 'tiny', seed: 1, overrides, clock }));
        return memoryServer(o.port);
      },
      ready: async () => ({ ready: true, path: '/health', seconds: 0 }),
      bench: (settings, deps) => {
        const sim = sims.get(Number(new URL(settings.baseUrl!).port))!;
        return new BenchRun(settings, { ...deps, ...simRunDeps(sim, clock, { metrics: { waiting: true } }) });
      },
    },
  );
  const outcome = await drive(clock, sweep.start());
  return { outcome, said, dir: outcome.dir };
}

describe('sweep in virtual time', () => {
  it('the configuration with more seats wins where the other queues, first by users under the service level', async () => {
    const { outcome, said, dir } = await virtualSweep('max-num-seqs: [4, 8]\n', { slo: level('ttft=500ms') });
    expect(outcome.file.status).toBe('complete');
    expect(outcome.file.runs.map((r) => r.status)).toEqual(['complete', 'complete']);
    expect(said).toContain('[1/2] max-num-seqs=4: ready after 0.0 s (/health)');
    const { file, results } = loadSweep(dir);
    const status = (key: string) => results.get(key)!.decode.map((c) => [c.concurrency, c.status]);
    expect(status(file.runs[0]!.key)).toEqual([
      [2, 'Valid'],
      [4, 'Valid'],
      [8, 'Requests queued'],
    ]);
    expect(status(file.runs[1]!.key)).toEqual([
      [2, 'Valid'],
      [4, 'Valid'],
      [8, 'Valid'],
    ]);
    // the runs keep the sweep's --slo, and the model counts users under it: 4 seats serve 4 (at 8 the four that
    // wait get their first token after a whole answer, ~1.3 s > 500 ms); 8 seats every level measured
    const m = sweepModel(file, results);
    expect(m.sloFrom).toBe('result');
    expect(m.slo.ttftMs).toBe(500);
    expect(m.users).toHaveLength(1);
    expect(m.users[0]!.byConfig.map((u) => [u.users, u.atLeast])).toEqual([
      [4, false],
      [8, true],
    ]);
    expect(m.users[0]!.leaders).toEqual([1]);
    const at8 = m.cells.find((v) => v.concurrency === 8)!;
    expect(at8.outcome).toBe('runner-up queues');
    expect(at8.candidates.map((c) => c.config)).toEqual([1, 0]);
    expect(m.contextLines[0]).toMatch(
      /^at 1K, max-num-seqs=8 serves the most users under the service level: at least 8 \(max-num-seqs=4: 4\); the most total tok\/s: max-num-seqs=8, [\d,.]+ tok\/s at 8 users, where max-num-seqs=4 queues requests\.$/,
    );
    // under a looser level (report --slo) both serve 8 users: the cell at 8 breaks the tie
    const loose = sweepModel(file, results, { slo: level('ttft=5s,share=50%') });
    expect(loose.users[0]!.leaders).toEqual([0, 1]);
    expect(loose.contextLines[0]).toMatch(
      /^at 1K, max-num-seqs=4 and max-num-seqs=8 serve the most users under the service level: at least 8 each, but at 8 users max-num-seqs=4 queues requests and max-num-seqs=8 does not;/,
    );
    const txt = stripAnsi(renderSweep(file, results, 'txt', { width: 80 }));
    for (const line of txt.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(txt).toMatch(/\n {3}8 +[\d,.]+Q +[\d,.]+ {3}B, A Q\n/);
    expect(txt).toContain('\nusers      4       8+ \n'); // under the last digit of each column
  });

  it('two identical configurations are called a tie', async () => {
    const { outcome, dir } = await virtualSweep('a: { max-num-seqs: 8 }\nb: { max-num-seqs: 8 }\n');
    expect(outcome.file.runs.map((r) => r.status)).toEqual(['complete', 'complete']);
    const { file, results } = loadSweep(dir);
    const m = sweepModel(file, results);
    expect(m.configs.map((c) => c.label)).toEqual(['a', 'b']);
    for (const v of m.cells) expect(v.outcome, `x${v.concurrency}`).toBe('no significant difference');
    expect(m.users[0]!.leaders).toEqual([0, 1]);
    expect(m.contextLines[0]).toMatch(
      /^at 1K, a and b serve the most users under the service level: at least 8 each, and at 8 users their total tok\/s do not differ: a tie; the most total tok\/s: [ab], [\d,.]+ tok\/s at 8 users\.$/,
    );
  });
});
