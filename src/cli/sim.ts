import type { CliIo } from './io.js';
import type { Command } from 'commander';
import { withOptions } from '../config/resolve.js';
import { BenchError } from '../errors.js';
import type { Profile } from '../sim/profile-schema.js';
import { startSim } from '../sim/server.js';

// --stalls 3:1500 -> the fault item "stall:count=3:ms=1500" (docs/sim.md "Faults").
function stallsFault(v: string): string {
  const m = /^(\d+):(\d+)$/.exec(v.trim());
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1)
    throw new BenchError('USAGE', `--stalls must be COUNT:MS, e.g. 3:1500, not "${v}".`);
  return `stall:count=${m[1]}:ms=${m[2]}`;
}

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('sim')
    .description(
      'run the simulated OpenAI-compatible engine (continuous batching, finite KV cache, ground truth)',
    );
  const resolve = withOptions(cmd, 'sim');
  cmd.action(async (flags: Record<string, unknown>) => {
    const o = resolve(flags).options;
    const overrides: Partial<Profile> = {};
    if (o.maxNumSeqs !== undefined) overrides.maxNumSeqs = o.maxNumSeqs;
    if (o.kvCapacity !== undefined) overrides.kvCapacityTokens = o.kvCapacity;
    if (o.maxModelLen !== undefined) overrides.maxModelLen = o.maxModelLen;
    if (o.timeScale !== undefined) overrides.timeScale = o.timeScale;
    if (!o.metrics) overrides.metrics = false;
    if (o.kvUnified) overrides.kvUnified = true;
    const stalls = o.stalls === undefined ? undefined : stallsFault(o.stalls);
    const sim = await startSim({
      profile: o.profile,
      overrides,
      host: o.host,
      port: o.port,
      flavor: o.flavor,
      apiKey: o.apiKey,
      faults: [o.faults, stalls].filter(Boolean).join(',') || undefined,
      truthLog: o.truthLog,
      seed: o.seed,
      ...(o.closeConnections !== undefined ? { closeConnections: o.closeConnections } : {}),
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
