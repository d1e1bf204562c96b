import type { CliIo } from './io.js';
import type { Command } from 'commander';
import { withOptions } from '../config/resolve.js';
import { BenchError } from '../errors.js';
import { withoutLocalHardwareForSim } from '../bench/sim-hardware.js';
import { probeFacts, probeTarget } from '../target/probe.js';
import { formatProbe, probeJson } from '../target/probe-format.js';
import { resolveApiKey } from './api-key.js';

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('probe')
    .description(
      'show what the server is: engine, version, model, max model length, KV capacity, metrics, hardware',
    );
  const resolve = withOptions(cmd, 'probe');
  cmd.action(async (flags: Record<string, unknown>) => {
    const o = resolve(flags).options;
    if (!o.baseUrl)
      throw new BenchError('USAGE', 'no server given.', { hint: 'Pass --base-url http://HOST:PORT/v1.' });
    const apiKey = resolveApiKey({ apiKey: o.apiKey, apiKeyFile: o.apiKeyFile, env: io.env });
    const { hardware, engineFlags } = probeFacts(o);
    const probed = await probeTarget({
      baseUrl: o.baseUrl,
      apiKey,
      model: o.model,
      engine: o.engine,
      fetchTimeoutMs: o.timeout * 1000,
      hardware,
      launchCommand: o.launchCommand,
      engineFlags,
    });
    const info = withoutLocalHardwareForSim(probed, hardware, o.backend);
    const out = o.json ? JSON.stringify(probeJson(info, o.baseUrl), null, 2) : formatProbe(info, o.baseUrl);
    io.stdout.write(out + '\n');
  });
}
