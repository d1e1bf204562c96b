import type { CliIo } from './io.js';
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { FLAVORS, type Flavor, type Profile } from '../sim/profile-schema.js';
import { startSim } from '../sim/server.js';

function intArg(name: string, min: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min)
      throw new InvalidArgumentError(`${name} must be an integer >= ${min}`);
    return n;
  };
}

function posArg(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
    return n;
  };
}

// --stalls 3:1500 -> the fault item "stall:count=3:ms=1500" (docs/sim.md "Faults").
function stallsArg(v: string): string {
  const m = /^(\d+):(\d+)$/.exec(v.trim());
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1)
    throw new InvalidArgumentError('--stalls must be COUNT:MS, e.g. 3:1500');
  return `stall:count=${m[1]}:ms=${m[2]}`;
}

interface SimFlags {
  profile: string;
  host: string;
  port: number;
  flavor?: Flavor;
  apiKey?: string;
  faults?: string;
  truthLog?: string;
  seed: number;
  maxNumSeqs?: number;
  kvCapacity?: number;
  timeScale?: number;
  metrics: boolean;
  kvUnified?: boolean;
  stalls?: string;
}

export function register(program: Command, io: CliIo): void {
  program
    .command('sim')
    .description(
      'run the simulated OpenAI-compatible engine (continuous batching, finite KV cache, ground truth)',
    )
    .option('--profile <name|file>', 'profile name in profiles/ or a .yaml/.json file', 'tiny')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port (0 = pick a free one)', intArg('--port', 0), 0)
    .addOption(new Option('--flavor <engine>', "protocol flavor (default: the profile's)").choices(FLAVORS))
    .option('--api-key <key>', 'require this API key where the flavor checks keys')
    .option(
      '--faults <spec>',
      'inject faults, e.g. "cut:0.05,500:count=3,stall:rate=0.01:ms=2000" (docs/sim.md)',
    )
    .option('--truth-log <file>', 'append the ground truth of every request as JSON lines')
    .option('--seed <n>', 'seed for early stops, speculative chunks and faults', intArg('--seed', 0), 1)
    .option('--max-num-seqs <n>', "override the profile's maxNumSeqs", intArg('--max-num-seqs', 1))
    .option('--kv-capacity <tokens>', "override the profile's kvCapacityTokens", intArg('--kv-capacity', 1))
    .option('--time-scale <x>', 'run the profile x times faster than real hardware', posArg('--time-scale'))
    .option('--no-metrics', 'serve no /metrics (404), to test queue detection without metrics')
    .option('--kv-unified', 'llama.cpp flavor: all slots share one KV pool of --kv-capacity tokens')
    .option(
      '--stalls <count:ms>',
      'stall that many streams for ms each (fault stall:count=N:ms=MS)',
      stallsArg,
    )
    .action(async (flags: SimFlags) => {
      const overrides: Partial<Profile> = {};
      if (flags.maxNumSeqs !== undefined) overrides.maxNumSeqs = flags.maxNumSeqs;
      if (flags.kvCapacity !== undefined) overrides.kvCapacityTokens = flags.kvCapacity;
      if (flags.timeScale !== undefined) overrides.timeScale = flags.timeScale;
      if (!flags.metrics) overrides.metrics = false;
      if (flags.kvUnified) overrides.kvUnified = true;
      const sim = await startSim({
        profile: flags.profile,
        overrides,
        host: flags.host,
        port: flags.port,
        flavor: flags.flavor,
        apiKey: flags.apiKey,
        faults: [flags.faults, flags.stalls].filter(Boolean).join(',') || undefined,
        truthLog: flags.truthLog,
        seed: flags.seed,
      });
      io.stdout.write(`${sim.url}\n`);
      const p = sim.profile;
      io.stderr.write(
        `sim: profile ${p.name}, flavor ${p.flavor}, model ${p.servedModelName}, max length ${p.maxModelLen}, ` +
          `KV ${p.kvCapacityTokens} tokens, maxNumSeqs ${p.maxNumSeqs}${p.timeScale !== 1 ? `, time x${p.timeScale}` : ''}; ` +
          `base URL ${sim.baseUrl}; Ctrl-C to stop\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await sim.close();
      const lag = sim.lag();
      io.stderr.write(
        `sim: stopped (scheduler lag p99 ${lag.p99Ms.toFixed(2)} ms, max ${lag.maxMs.toFixed(2)} ms)\n`,
      );
    });
}
