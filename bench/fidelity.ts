// bench:fidelity — the real runner (BenchRun: probe, prefill, warm-up, closed-loop decode cells) against the
// simulated engine's ground truth (truth log), the sim in its own process: TTFT, per-request decode rate and
// time between tokens per request and per cell, receive delay, and exact token counts at 1, 64 and 256 streams.
// Then the client's call -> write gap (undici's deferred write) at 1, 64, 256 and 1,024 streams.
// Usage: npm run bench:fidelity [-- --quick] [-- --workers=2] [-- --concurrency=1,64,256] [-- --write-gap=1,64]
import { rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { BenchRun } from '../src/bench/run.js';
import type { RunInput } from '../src/bench/settings.js';
import { readRequestLines } from '../src/results/io.js';
import { windowFigures } from '../src/stats/window.js';
import { OUT_DIR, boostPriority, quantile, table, writeOut } from './lib/out.js';
import { benchProfile } from './lib/profiles.js';
import { startSimChild } from './lib/sim-child.js';
import { countsExact, lineAsTimed, truthAsTimed, truthById } from './lib/truth.js';
import { measureWriteGap } from './lib/write-gap.js';
import { decodeKey } from '../src/results/cell-key.js';
import { benchArgs } from './lib/args.js';

const ARGS = benchArgs(
  {
    name: 'bench:fidelity',
    about: "The real runner against the sim's ground truth, then the call -> write gap.",
  },
  {
    quick: { type: 'flag', help: 'shorter windows (a smoke check, not figures)' },
    workers: { type: 'number', default: 1, help: "the runner's --workers" },
    concurrency: { type: 'numbers', default: [1, 64, 256], help: 'streams per cell' },
    'write-gap': {
      type: 'numbers',
      default: [1, 64, 256, 1024],
      help: 'stream counts of the write-gap part',
    },
  },
);
const QUICK = ARGS.quick;
const CONC = ARGS.concurrency;
const WORKERS = ARGS.workers;
const STEP_MS = 20;

const med = (xs: number[]) => quantile(xs, 0.5);
const p99 = (xs: number[]) => quantile(xs, 0.99);
const rate = (c: ReadonlyArray<readonly [number, number]>) => {
  if (c.length < 2) return undefined;
  const after = c.slice(1).reduce((a, x) => a + x[1], 0);
  const span = c[c.length - 1]![0] - c[0]![0];
  return span > 0 ? { tokPerS: (after * 1000) / span, tbtMs: span / after } : undefined;
};

async function main() {
  const priority = boostPriority();
  const runId = `fidelity-${Date.now()}`;
  const truthLog = join(OUT_DIR, `${runId}.truth.jsonl`);
  rmSync(truthLog, { force: true });
  const { mkdirSync } = await import('node:fs');
  mkdirSync(OUT_DIR, { recursive: true });
  const sim = await startSimChild({
    profile: benchProfile({ stepMs: STEP_MS }),
    profileFile: join(OUT_DIR, `${runId}.profile.json`),
    truthLog,
  });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const load0 = os.loadavg()[0];
  let dir: string;
  let simCpuS: number;
  try {
    const settings: RunInput = {
      baseUrl: sim.baseUrl,
      api: 'chat',
      contexts: [512],
      prefillContexts: [512],
      concurrency: CONC,
      maxOutput: 64,
      duration: QUICK ? 2 : 4,
      prefillRepeats: 1,
      rampTimeout: 10,
      settleTimeout: 5,
      settlePause: 0.2,
      metricsInterval: 0.5,
      out: OUT_DIR,
      runId,
      reports: false,
      ...(WORKERS > 1 ? { workers: WORKERS } : {}),
    };
    const out = await new BenchRun(settings).start();
    dir = out.dir;
  } finally {
    simCpuS = sim.cpuMs() / 1000;
    await sim.stop();
  }
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const clientCpuS = (cpu.user + cpu.system) / 1e6;
  const truth = truthById(truthLog);
  const lines = readRequestLines(join(dir, 'requests.jsonl'));
  const { readResult } = await import('../src/results/read.js');
  const result = readResult(join(dir, 'result.json'));
  const rows = [];
  for (const cell of result.decode) {
    const name = decodeKey(cell.contextTokens, cell.concurrency);
    const mine = lines.filter((l) => l.cell === name && l.phase !== 'warmup');
    const window = { openMs: cell.windowOpenMs!, closeMs: cell.windowCloseMs! };
    let exact = 0;
    let inexact = 0;
    let missing = 0;
    const ttftErr: number[] = [];
    const rateErrPct: number[] = [];
    const tbtErr: number[] = [];
    const recvDelay: number[] = [];
    const sendDelay: number[] = [];
    const firstRecv: number[] = [];
    const truthTimed = [];
    for (const l of mine) {
      const t = truth.get(l.requestId);
      if (!t) {
        missing += 1;
        continue;
      }
      truthTimed.push(truthAsTimed(t));
      if (countsExact(l, t)) exact += 1;
      else {
        inexact += 1;
        if (inexact <= 3)
          process.stderr.write(
            `inexact ${l.requestId} ${l.phase} ${l.status}/${l.errorKind ?? ''}: client ${l.chunks.length} chunks ${l.outputTokens} tokens, sim ${t.chunks.length} chunks ${t.outputTokens} tokens (${t.reason})\n`,
          );
        continue;
      }
      sendDelay.push(t.arrivalMs - l.sentAtMs);
      for (let i = 0; i < l.chunks.length; i++) recvDelay.push(l.chunks[i]![0] - t.chunks[i]![0]);
      const firstIn =
        l.firstTokenAtMs !== undefined &&
        l.firstTokenAtMs >= window.openMs &&
        l.firstTokenAtMs < window.closeMs;
      if (firstIn && t.firstTokenMs !== undefined) {
        ttftErr.push(l.firstTokenAtMs! - l.sentAtMs - (t.firstTokenMs - t.arrivalMs));
        firstRecv.push(l.firstTokenAtMs! - t.firstTokenMs);
      }
      const rc = rate(l.chunks);
      const rt = rate(t.chunks.slice(0, l.chunks.length));
      if (l.status === 'ok' && rc && rt) {
        rateErrPct.push((100 * (rc.tokPerS - rt.tokPerS)) / rt.tokPerS);
        tbtErr.push(rc.tbtMs - rt.tbtMs);
      }
    }
    const ft = windowFigures(truthTimed, window);
    const fc = windowFigures(mine.map(lineAsTimed), window);
    rows.push({
      streams: cell.concurrency,
      status: cell.status,
      requests: mine.length,
      countsExact: `${exact}/${exact + inexact}`,
      'unseen (aborted before the sim)': missing,
      'ttft err p50 ms': med(firstRecv),
      'ttft err p99 ms': p99(firstRecv),
      'vs sim arrival p50': med(ttftErr),
      'cell ttft ms': cell.ttftMs,
      'truth ttft ms': ft.ttftMs,
      'rate err p50 %': med(rateErrPct),
      'tbt err p50 ms': med(tbtErr),
      'cell tok/s': cell.totalTokensPerS,
      'truth tok/s': ft.totalTokensPerS,
      'recv p50 ms': med(recvDelay),
      'recv p99 ms': p99(recvDelay),
      'send->arrival p50': med(sendDelay),
      windowTokens: `${fc.outputTokens}/${ft.outputTokens}`,
    });
  }
  process.stdout.write(table(rows));
  const writeGap = await writeGapSection();
  const path = writeOut('fidelity', {
    settings: { concurrency: CONC, workers: WORKERS, stepMs: STEP_MS, quick: QUICK },
    priority,
    wallS,
    clientCpuS,
    simCpuS,
    loadAvg1m: [load0, os.loadavg()[0]],
    rows,
    writeGap,
  });
  process.stdout.write(
    `\nwall ${wallS.toFixed(1)} s, client CPU ${clientCpuS.toFixed(1)} s, sim CPU ${simCpuS.toFixed(1)} s, ` +
      `load avg ${load0?.toFixed(1)} -> ${os.loadavg()[0]?.toFixed(1)} (${os.cpus().length} cores); JSON: ${path}\n`,
  );
}

// The call -> write gap: TTFT starts at the write, and this is how far the call time would have been off.
async function writeGapSection() {
  const streams = ARGS['write-gap'];
  const load = os.loadavg()[0];
  const rows = await measureWriteGap({ streams, seconds: QUICK ? 2 : 4 });
  process.stdout.write(
    `\ncall -> write gap (load avg ${load?.toFixed(1)} -> ${os.loadavg()[0]?.toFixed(1)})\n`,
  );
  process.stdout.write(table(rows as unknown as Array<Record<string, number | null>>));
  return { loadAvg1m: [load, os.loadavg()[0]], rows };
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
