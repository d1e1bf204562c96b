import type { CliIo } from './io.js';
import type { Command } from 'commander';
import type { RunInput } from '../bench/settings.js';
import { simProfileHardware } from '../bench/sim-hardware.js';
import { withOptions } from '../config/resolve.js';
import { BenchError } from '../errors.js';
import { cliCommand } from '../invocation.js';
import { chooseProgress } from '../progress/index.js';
import { printOutcome, runWithSignals } from './run.js';
import { wrap } from '../report/text.js';
import { terminalWidth } from '../report/terminal.js';

// The demo profile (profiles/demo.yaml) is sized so this matrix shows every status: Valid, Requests queued
// (maxNumSeqs 8 < 16) and Over capacity (N x (C + 512) > 64K tokens).
export const DEMO_CONTEXTS = [1024, 2048, 4096, 8192];
export const DEMO_CONCURRENCY = [1, 4, 8, 16];

// The demo's matrix and its short timings (shared with bench/orchestration.ts, which measures the same run).
export function demoSettings(baseUrl: string, maxModelLen: number, duration: number, out: string): RunInput {
  return {
    baseUrl,
    contexts: DEMO_CONTEXTS,
    prefillContexts: [...DEMO_CONTEXTS, maxModelLen - 256],
    concurrency: DEMO_CONCURRENCY,
    maxOutput: 512,
    duration,
    rampTimeout: 2,
    settleTimeout: 10,
    settlePause: 0.5,
    metricsInterval: 0.25,
    out,
  };
}

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('demo')
    .description(
      'start the simulated engine on a free loopback port, run a short matrix (~1-2 min), write the result and report',
    );
  const resolve = withOptions(cmd, 'demo');
  cmd.action(async (flags: Record<string, unknown>) => {
    const resolved = resolve(flags);
    const o = resolved.options;
    const duration = o.duration;
    if (duration > 30)
      throw new BenchError('USAGE', `--duration must be at most 30 s for the demo, got ${duration} s.`, {
        hint:
          `For longer windows, start the sim (\`${cliCommand('sim', '--profile', 'demo', '--port', '8000')}\`) ` +
          `and run against it from another terminal (\`${cliCommand('run', '--base-url', 'http://127.0.0.1:8000/v1', '--duration', '60')}\`).`,
      });
    // On its own thread, as a real server would be: the client's event loop and self-check stay the client's.
    const { startSimInWorker } = await import('../sim/worker-sim.js');
    const sim = await startSimInWorker({ profile: 'demo', host: '127.0.0.1', port: 0 });
    const quiet = o.quiet === true;
    if (!quiet) io.stderr.write(`simulated engine (${sim.profile.name}) at ${sim.baseUrl}\n`);
    try {
      const out = await runWithSignals(
        {
          ...demoSettings(sim.baseUrl, sim.profile.maxModelLen, duration, o.out),
          title: 'Demo: simulated engine',
          // The profile's GPU facts, marked simulated: never this machine's GPUs (or their power).
          hardware: simProfileHardware(sim.profile),
        },
        chooseProgress({ quiet, stream: io.stderr }),
        io,
        {},
        // The simulated engine stops with the demo, so `run --resume` would find no server: start again.
        () => {
          const again = [
            ...(resolved.given.has('duration') ? ['--duration', String(duration)] : []),
            ...(resolved.given.has('out') ? ['--out', o.out] : []),
          ];
          return `The demo's simulated engine stopped with it, so it cannot be continued; run the demo again: \`${cliCommand('demo', ...again)}\`.`;
        },
      );
      printOutcome(out, quiet, io);
      if (!quiet) {
        const html = out.reports.find((r) => r.endsWith('.html'));
        if (html)
          io.stdout.write(
            wrap(`open ${html} in a browser to see the report`, terminalWidth(io.stdout)).join('\n') + '\n',
          );
        io.stdout.write(`browse and compare your runs: \`${cliCommand('serve', o.out)}\`\n`);
      }
    } finally {
      await sim.close();
    }
  });
}
