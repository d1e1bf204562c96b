import type { CliIo } from './io.js';
import type { Command } from 'commander';
import { simProfileHardware } from '../bench/sim-hardware.js';
import { BenchError } from '../errors.js';
import { chooseProgress } from '../progress/index.js';
import { printOutcome, runWithSignals } from './run.js';

interface DemoFlags {
  out: string;
  duration: string;
  quiet?: boolean;
}

// The demo profile (profiles/demo.yaml) is sized so this matrix shows every status: Valid, Requests queued
// (maxNumSeqs 8 < 16) and Over capacity (N x (C + 512) > 64K tokens).
export const DEMO_CONTEXTS = [1024, 2048, 4096, 8192];
export const DEMO_CONCURRENCY = [1, 4, 8, 16];

export function register(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description(
      'start the simulated engine on a free loopback port, run a short matrix (~1-2 min), write the result and report',
    )
    .option('--out <dir>', 'results folder', 'results')
    .option('--duration <seconds>', 'window per cell', '3')
    .option('--quiet', 'print only the result path')
    .action(async (flags: DemoFlags) => {
      const durationS = Number(flags.duration);
      if (!Number.isFinite(durationS) || durationS <= 0 || durationS > 30)
        throw new BenchError(
          'USAGE',
          `--duration must be a number of seconds in (0, 30], got "${flags.duration}".`,
        );
      // Loaded on use: every other command starts faster without the sim's modules.
      const { startSim } = await import('../sim/index.js');
      const sim = await startSim({ profile: 'demo', host: '127.0.0.1', port: 0 });
      const quiet = flags.quiet === true;
      if (!quiet) io.stderr.write(`simulated engine (${sim.profile.name}) at ${sim.baseUrl}\n`);
      try {
        const out = await runWithSignals(
          {
            baseUrl: sim.baseUrl,
            api: 'chat',
            contexts: DEMO_CONTEXTS,
            prefillContexts: [...DEMO_CONTEXTS, sim.profile.maxModelLen - 256],
            concurrency: DEMO_CONCURRENCY,
            maxOutput: 512,
            durationS,
            prefillRepeats: 1,
            rampTimeoutS: 2,
            settleTimeoutS: 10,
            settlePauseS: 0.5,
            metricsIntervalS: 0.25,
            ignoreEos: true,
            sampling: {},
            seed: 1,
            outDir: flags.out,
            title: 'Demo: simulated engine',
            // The profile's GPU facts, marked simulated: never this machine's GPUs (or their power).
            hardware: simProfileHardware(sim.profile),
          },
          chooseProgress({ quiet, stream: io.stderr }),
          io,
        );
        printOutcome(out, quiet, io);
        if (!quiet) {
          const html = out.reports.find((r) => r.endsWith('.html'));
          if (html) io.stdout.write(`open ${html} in a browser to see the report\n`);
        }
      } finally {
        await sim.close();
      }
    });
}
