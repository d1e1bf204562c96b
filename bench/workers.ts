// bench:workers — one decode cell (the runner's closed loop) on 1, 2, ... worker threads against the sim in its
// own process: throughput, client CPU, receive delay (sim write -> client stamp, from the truth log) and exact
// token counts, so the scaling of --workers shows where cores allow.
// Usage: npm run bench:workers [-- --workers=0,1,2] [-- --streams=128] [-- --step=10] [-- --window=4]
// (0 = the single-threaded cell, no worker threads)
import { rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { windowFigures } from '../src/stats/window.js';
import { OUT_DIR, boostPriority, quantile, table, writeOut } from './lib/out.js';
import { benchSender, runCell } from './lib/cell.js';
import { benchProfile } from './lib/profiles.js';
import { startSimChild } from './lib/sim-child.js';
import { countsExact, truthById } from './lib/truth.js';
import { benchArgs } from './lib/args.js';

const ARGS = benchArgs(
  { name: 'bench:workers', about: 'One decode cell on 1, 2, ... worker threads against the sim.' },
  {
    workers: {
      type: 'numbers',
      help: 'worker thread counts (0: no worker threads); default 0,1,2 (and 4 past 2 cores)',
    },
    streams: { type: 'number', default: 128, help: 'streams in the cell' },
    step: { type: 'number', default: 10, help: "the sim's decode step, ms" },
    window: { type: 'number', default: 4, help: 'measurement window, seconds' },
  },
);
const WORKERS = ARGS.workers ?? (os.cpus().length > 2 ? [0, 1, 2, 4] : [0, 1, 2]);
const STREAMS = ARGS.streams;
const STEP_MS = ARGS.step;
const WINDOW_S = ARGS.window;

async function main() {
  const priority = boostPriority();
  const { mkdirSync } = await import('node:fs');
  mkdirSync(OUT_DIR, { recursive: true });
  const truthLog = join(OUT_DIR, `workers-${process.pid}.truth.jsonl`);
  rmSync(truthLog, { force: true });
  const sim = await startSimChild({
    profile: benchProfile({ stepMs: STEP_MS, maxNumSeqs: STREAMS }),
    profileFile: join(OUT_DIR, `workers-${process.pid}.profile.json`),
    truthLog,
  });
  const runs = [];
  try {
    for (const w of WORKERS) {
      const sender = await benchSender(sim.baseUrl, `w${w}-${process.pid}`);
      const cpu0 = process.cpuUsage();
      const sim0 = sim.cpuMs();
      const t0 = performance.now();
      const run = await runCell(sender, {
        contextTokens: 256,
        concurrency: STREAMS,
        maxOutput: 256,
        duration: WINDOW_S,
        rampTimeout: 30,
        ...(w > 0 ? { workers: w } : {}),
      });
      const cpu = process.cpuUsage(cpu0);
      const wallMs = performance.now() - t0;
      runs.push({ w, run, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, simCpuMs: sim.cpuMs() - sim0 });
    }
  } finally {
    await new Promise((r) => setTimeout(r, 500)); // the truth log flushes the aborted requests
    await sim.stop();
  }
  const truth = truthById(truthLog);
  const rows = runs.map(({ w, run, wallMs, cpuMs, simCpuMs }) => {
    const f = windowFigures(
      run.sent.map((s) => s.record),
      run.window,
    );
    const delays: number[] = [];
    let exact = 0;
    let seen = 0;
    for (const s of run.sent) {
      const t = truth.get(s.requestId);
      if (!t) continue;
      seen += 1;
      const line = {
        chunks: s.record.chunks,
        status: s.record.ok ? 'ok' : 'error',
        outputTokens: s.record.outputTokens,
      };
      if (countsExact(line as never, t)) exact += 1;
      for (let i = 0; i < s.record.chunks.length; i++) {
        const at = s.record.chunks[i]![0];
        if (at >= run.window.openMs && at < run.window.closeMs) delays.push(at - t.chunks[i]![0]);
      }
    }
    const tokensAll = run.sent.reduce((a, s) => a + s.record.outputTokens, 0);
    return {
      workers: w === 0 ? 'none (1 thread)' : String(w),
      'tok/s': f.totalTokensPerS,
      'per-req tok/s': f.perRequestTokensPerS,
      'tbt ms': f.tbtMs,
      'ttft ms': f.ttftMs,
      'client CPU ms/1k tok': (cpuMs * 1000) / Math.max(1, tokensAll),
      'client CPU %': (100 * cpuMs) / wallMs,
      'sim CPU %': (100 * simCpuMs) / wallMs,
      'recv p50 ms': quantile(delays, 0.5),
      'recv p99 ms': quantile(delays, 0.99),
      countsExact: `${exact}/${seen}`,
    };
  });
  process.stdout.write(table(rows));
  const path = writeOut('workers', { priority, streams: STREAMS, stepMs: STEP_MS, windowS: WINDOW_S, rows });
  process.stdout.write(`\n${os.cpus().length} cores; JSON: ${path}\n`);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
