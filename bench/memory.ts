// bench:memory — resident memory of the client holding 1,024 and 4,096 concurrent slow streams (the runner's
// decode cell against the sim in its own process; one token per stream every 500 ms).
// Target: 4,096 streams in <= 300 MB RSS. Usage: npm run bench:memory [-- --streams=1024,4096] [-- --window=6]
import { join } from 'node:path';
import { windowFigures } from '../src/stats/window.js';
import { OUT_DIR, boostPriority, table, writeOut } from './lib/out.js';
import { benchSender, runCell } from './lib/cell.js';
import { benchProfile } from './lib/profiles.js';
import { startSimChild } from './lib/sim-child.js';
import { benchArgs } from './lib/args.js';

const ARGS = benchArgs(
  { name: 'bench:memory', about: 'Resident memory of the client holding many slow streams.' },
  {
    streams: { type: 'numbers', default: [1024, 4096], help: 'stream counts, one cell each' },
    window: { type: 'number', default: 6, help: 'measurement window, seconds' },
  },
);
const STREAMS = ARGS.streams;
const WINDOW_S = ARGS.window;
const STEP_MS = 500;
const MB = 1024 * 1024;

async function main() {
  const priority = boostPriority();
  const { mkdirSync } = await import('node:fs');
  mkdirSync(OUT_DIR, { recursive: true });
  const sim = await startSimChild({
    profile: benchProfile({ stepMs: STEP_MS, maxNumSeqs: Math.max(...STREAMS) }),
    profileFile: join(OUT_DIR, `memory-${process.pid}.profile.json`),
  });
  const rows = [];
  try {
    const sender = await benchSender(sim.baseUrl, `mem-${process.pid}`);
    for (const n of STREAMS) {
      global.gc?.();
      const base = process.memoryUsage();
      let peak = base;
      const timer = setInterval(() => {
        const m = process.memoryUsage();
        if (m.rss > peak.rss) peak = m;
      }, 100);
      const t0 = performance.now();
      const run = await runCell(sender, {
        contextTokens: 256,
        concurrency: n,
        maxOutput: 4096, // longer than the window: every stream stays open to the close
        duration: WINDOW_S,
        rampTimeout: 60,
      });
      clearInterval(timer);
      const f = windowFigures(
        run.sent.map((s) => s.record),
        run.window,
      );
      const chunks = run.sent.reduce((a, s) => a + s.record.chunks.length, 0);
      rows.push({
        streams: n,
        'ramp s': (run.window.openMs - (performance.timeOrigin + t0)) / 1000,
        rampTimedOut: String(run.rampTimedOut),
        'tok/s': f.totalTokensPerS,
        'base RSS MB': base.rss / MB,
        'peak RSS MB': peak.rss / MB,
        'heap MB': peak.heapUsed / MB,
        'external MB': peak.external / MB,
        'KB/stream': (peak.rss - base.rss) / 1024 / n,
        chunksKept: chunks,
        errors: run.sent.filter((s) => !s.record.ok && s.record.error?.kind !== 'aborted').length,
      });
    }
  } finally {
    await sim.stop();
  }
  process.stdout.write(table(rows));
  const path = writeOut('memory', {
    priority,
    stepMs: STEP_MS,
    windowS: WINDOW_S,
    target: { streams: 4096, rssMb: 300 },
    rows,
  });
  process.stdout.write(`\nJSON: ${path}\n`);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
