// bench:ceiling — the most streams and tokens per second this machine's client drives while every cell stays
// trustworthy: the runner's closed-loop decode cell against the sim (own process, pinned to the last core, constant
// decode steps), the offered load stepped up (streams x tokens per chunk at a fixed step time) for the slots in
// this thread and on worker threads, each cell judged by the runner's own client self-check (src/client/self-check.ts)
// and by exact token counts against the sim's truth. Per configuration: the last load that stayed green and the
// first that did not, with the reason (a red cell is measured twice). Bounded: stops stepping at the first non-green
// load and at the time budget.
// Usage: npm run bench:ceiling [-- --quick] [-- --workers=0,2] [-- --streams=64,128,256,512,1024] [-- --tpc=1,4]
//   [-- --step=10] [-- --window=3] [-- --budget=330]   (workers 0 = in this thread; the runner's --workers 1 is too)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { clientThreads } from '../src/bench/drive/runner.js';
import { closePool } from '../src/bench/drive/workers/pool.js';
import { ClientMonitor } from '../src/client/self-check.js';
import { judgeCeilingCell, type CeilingCell } from './lib/ceiling-cell.js';
import { benchSender, runCell } from './lib/cell.js';
import { OUT_DIR, boostPriority, table, writeOut } from './lib/out.js';
import { benchProfile } from './lib/profiles.js';
import { startSimChild, type SimChild } from './lib/sim-child.js';
import { truthSince } from './lib/truth.js';
import { benchArgs } from './lib/args.js';

const ARGS = benchArgs(
  {
    name: 'bench:ceiling',
    about: "The most streams and tokens/s this machine's client drives with every cell trusted.",
  },
  {
    quick: { type: 'flag', help: 'fewer loads, shorter windows (a smoke check, not figures)' },
    workers: { type: 'numbers', default: [0, 2], help: 'worker threads per configuration (0: this thread)' },
    streams: { type: 'numbers', help: 'stream counts; default 64,128,256,512,1024, --quick 64,256,1024' },
    tpc: { type: 'numbers', default: [1, 4], help: 'tokens per chunk' },
    step: { type: 'number', default: 10, help: "the sim's decode step, ms" },
    window: { type: 'number', help: 'measurement window, seconds; default 3, --quick 2' },
    budget: { type: 'number', help: 'time budget, seconds; default 330, --quick 105' },
  },
);
const QUICK = ARGS.quick;
const WORKERS = ARGS.workers;
const STREAMS = ARGS.streams ?? (QUICK ? [64, 256, 1024] : [64, 128, 256, 512, 1024]);
const TPC = ARGS.tpc;
const STEP_MS = ARGS.step;
const WINDOW_S = ARGS.window ?? (QUICK ? 2 : 3);
const BUDGET_S = ARGS.budget ?? (QUICK ? 105 : 330);
const RAMP_TIMEOUT_S = QUICK ? 5 : 8;
const CONTEXT = 128;
const STEPS_PER_REQUEST = 256; // ~2.6 s requests at 10 ms steps: a re-send burst inside every window
// Several tokens a chunk: the sim's speculative decoding, accepting k draft tokens almost always.
const speculative = (tpc: number) => (tpc > 1 ? { k: tpc - 1, meanTokens: tpc - 0.05 } : undefined);

interface Series {
  tokensPerChunk: number;
  workers: number;
  threads: number;
  cells: Array<CeilingCell & { loadAvg1m: number }>;
  lastGreen: CeilingCell | null;
  firstNotGreen: CeilingCell | null;
  stoppedBy: 'not green' | 'time budget' | 'all loads green';
}

// The client on every core but the sim's (all its threads, worker threads inherit it): one core here on 2.
function pinClient(): string | null {
  const cores = os.cpus().length;
  if (cores < 2 || !existsSync('/usr/bin/taskset')) return null;
  const set = cores === 2 ? '0' : `0-${cores - 2}`;
  try {
    execFileSync('taskset', ['-acp', set, String(process.pid)], { stdio: 'ignore' });
    return set;
  } catch {
    return null;
  }
}

async function series(sim: SimChild, truthLog: string, tpc: number, workers: number, deadline: number) {
  const threads = clientThreads(workers === 0 ? undefined : workers);
  const sender = await benchSender(sim.baseUrl, `ceil-t${tpc}w${workers}-${process.pid}`);
  const spec = (n: number, windowS: number) => ({
    contextTokens: CONTEXT,
    concurrency: n,
    maxOutput: STEPS_PER_REQUEST * tpc,
    duration: windowS,
    rampTimeout: RAMP_TIMEOUT_S,
    ...(workers > 0 ? { workers } : {}),
  });
  // Warm JIT, keep-alive sockets and the worker pool: one short unjudged cell.
  await runCell(sender, spec(STREAMS[0]!, 1));
  let offset = truthSince(truthLog, 0).next;
  const out: Series = {
    tokensPerChunk: tpc,
    workers,
    threads,
    cells: [],
    lastGreen: null,
    firstNotGreen: null,
    stoppedBy: 'all loads green',
  };
  const measure = async (n: number) => {
    const run = await runCell(sender, spec(n, WINDOW_S), new ClientMonitor(threads));
    await new Promise((r) => setTimeout(r, 300)); // the sim logs the requests aborted at the close
    const read = truthSince(truthLog, offset);
    offset = read.next;
    const offered = (n * (speculative(tpc)?.meanTokens ?? 1) * 1000) / STEP_MS;
    const cell = judgeCeilingCell(run, read.truth, n, offered);
    out.cells.push({ ...cell, loadAvg1m: os.loadavg()[0] ?? 0 }); // a shared machine: the load of each cell
    process.stdout.write(
      `  tpc ${tpc} workers ${workers}: ${n} streams ${cell.verdict}${cell.reason ? ` (${cell.reason})` : ''}\n`,
    );
    return cell;
  };
  for (const n of STREAMS) {
    if (performance.now() + (WINDOW_S + 4) * 1000 > deadline) {
      out.stoppedBy = 'time budget';
      break;
    }
    let cell = await measure(n);
    // A red cell is measured once more before it ends the series: one stall of a shared machine is not a ceiling.
    if (cell.verdict === 'red' && performance.now() + (WINDOW_S + 4) * 1000 < deadline)
      cell = await measure(n);
    if (cell.verdict !== 'green') {
      out.firstNotGreen = cell;
      out.stoppedBy = 'not green';
      break;
    }
    out.lastGreen = cell;
  }
  await closePool(sender); // the next configuration starts its own threads
  return out;
}

const fmt = (x: number | null | undefined, d = 0) => (x === null || x === undefined ? '-' : x.toFixed(d));

function rows(all: Series[]) {
  return all.flatMap((s) =>
    s.cells.map((c) => ({
      'tok/chunk': s.tokensPerChunk,
      workers: s.workers === 0 ? 'none' : s.workers,
      streams: c.streams,
      'offered tok/s': Math.round(c.offeredTokPerS),
      'sim tok/s': fmt(c.engineTokPerS),
      'client tok/s': fmt(c.clientTokPerS),
      counts: c.countsExact,
      'loop p99 ms': fmt(c.loopDelayP99Ms, 1),
      'CPU %/thread': fmt(c.cpuPctPerThread),
      'busiest loop %':
        c.busiestLoopPct === null
          ? '-'
          : `${fmt(c.busiestLoopPct)} ${c.busiestLoop === 'main thread' ? 'main' : (c.busiestLoop ?? '').replace('worker ', 'w')}`,
      'CPU % of core': fmt(c.processCpuPctOfCore),
      'recv p50/p99 ms': `${fmt(c.recvP50Ms, 1)}/${fmt(c.recvP99Ms, 1)}`,
      verdict: c.verdict,
      load: c.loadAvg1m.toFixed(1),
    })),
  );
}

function summary(all: Series[]) {
  return all.map((s) => ({
    'tok/chunk': s.tokensPerChunk,
    workers: s.workers === 0 ? 'none (this thread)' : String(s.workers),
    'last green: streams': s.lastGreen?.streams ?? '-',
    'tok/s': fmt(s.lastGreen?.clientTokPerS),
    'first not green: streams': s.firstNotGreen?.streams ?? '-',
    why: s.firstNotGreen?.reason ?? (s.stoppedBy === 'time budget' ? '(time budget)' : '(every load green)'),
  }));
}

function checkArgs(): void {
  const bad = [
    ...WORKERS.filter((w) => !Number.isInteger(w) || w < 0).map((w) => `--workers=${w}`),
    ...[...STREAMS, ...TPC].filter((x) => !Number.isInteger(x) || x < 1).map((x) => `${x} (streams, tpc)`),
    ...[STEP_MS, WINDOW_S, BUDGET_S].filter((x) => !(x > 0)).map((x) => `${x} (step, window, budget)`),
  ];
  if (bad.length === 0) return;
  process.stderr.write(
    `bench:ceiling: bad value ${bad[0]}; use whole numbers, e.g. --workers=0,2 --streams=64,256 --tpc=1,4\n`,
  );
  process.exit(2);
}

async function main() {
  checkArgs();
  const started = performance.now();
  const deadline = started + BUDGET_S * 1000;
  const priority = boostPriority();
  const clientCores = pinClient();
  mkdirSync(OUT_DIR, { recursive: true });
  const all: Series[] = [];
  for (const tpc of TPC) {
    const truthLog = join(OUT_DIR, `ceiling-${process.pid}-t${tpc}.truth.jsonl`);
    rmSync(truthLog, { force: true });
    const sim = await startSimChild({
      profile: benchProfile({
        stepMs: STEP_MS,
        maxNumSeqs: Math.max(...STREAMS),
        speculative: speculative(tpc),
      }),
      profileFile: join(OUT_DIR, `ceiling-${process.pid}-t${tpc}.profile.json`),
      truthLog,
    });
    try {
      for (const w of WORKERS) all.push(await series(sim, truthLog, tpc, w, deadline));
    } finally {
      await sim.stop();
      rmSync(truthLog, { force: true });
    }
  }
  const cores = os.cpus().length;
  const load = [priority.loadAvg1m, os.loadavg()[0] ?? 0];
  process.stdout.write(`\n${table(rows(all))}\n${table(summary(all))}`);
  if (all.some((s) => s.firstNotGreen !== null && s.firstNotGreen.streams === STREAMS[0]))
    process.stdout.write(
      `\nThe lowest load (${STREAMS[0]} streams) was not green in some configurations: no ceiling there. On a busy machine ` +
        'the self-check sees the run queue (event-loop delay) before the client runs out of CPU: run it quiet.\n',
    );
  process.stdout.write(
    `\n${cores} cores: the sim on core ${cores - 1}, the client on ${clientCores === null ? 'any core (not pinned)' : `core(s) ${clientCores}`}` +
      `${cores === 2 ? ' — one client core: this is the ceiling of one client core, whatever the worker count' : ''}.` +
      ` ${STEP_MS} ms steps, ${WINDOW_S} s windows; load average ${load[0]!.toFixed(2)} -> ${load[1]!.toFixed(2)};` +
      ` ${((performance.now() - started) / 1000).toFixed(0)} s.\n`,
  );
  const path = writeOut('ceiling', {
    settings: {
      workers: WORKERS,
      streams: STREAMS,
      tokensPerChunk: TPC,
      stepMs: STEP_MS,
      windowS: WINDOW_S,
      budgetS: BUDGET_S,
      quick: QUICK,
    },
    priority,
    clientCores,
    loadAvg1m: load,
    series: all,
  });
  process.stdout.write(`JSON: ${path}\n`);
  process.exit(0);
}

// Never outlive the budget by much, even if a cell hangs: the sim child is killed on exit (sim-child.ts).
setTimeout(
  () => {
    process.stderr.write(`bench:ceiling: stopped at the time limit (${BUDGET_S + 60} s)\n`);
    process.exit(1);
  },
  (BUDGET_S + 60) * 1000,
).unref();

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
