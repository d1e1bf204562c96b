import type { CliIo } from './io.js';
import type { Command } from 'commander';
import { BenchError } from '../errors.js';
import { probeTarget } from '../target/probe.js';
import { withoutLocalHardwareForSim } from '../bench/sim-hardware.js';
import { formatProbe, probeJson } from '../target/probe-format.js';
import { resolveApiKey } from './api-key.js';

interface ProbeFlags {
  baseUrl: string;
  apiKey?: string;
  apiKeyFile?: string;
  model?: string;
  engine?: string;
  json?: boolean;
  timeout?: string;
  gpuName?: string;
  gpuCount?: string;
  gpuMemoryGb?: string;
  launchCommand?: string;
  engineVersion?: string;
  engineCommit?: string;
  quantization?: string;
  backend?: string;
  build?: string;
  repository?: string;
}

export function register(program: Command, io: CliIo): void {
  program
    .command('probe')
    .description(
      'show what the server is: engine, version, model, max model length, KV capacity, metrics, hardware',
    )
    .requiredOption('--base-url <url>', 'server URL, e.g. http://127.0.0.1:8000/v1')
    .option('--api-key <key>', 'API key (or env OPENAI_API_KEY / LLM_BENCH_API_KEY)')
    .option('--api-key-file <file>', 'file holding the API key')
    .option('--model <name>', 'served model to use (default: the first listed)')
    .option('--engine <name>', 'skip detection: vllm, sglang, llamacpp, tgi, ollama, trtllm, generic')
    .option('--json', 'print JSON')
    .option('--timeout <s>', 'per-request timeout in seconds', '5')
    .option('--gpu-name <name>', 'GPU model (servers on other hosts)')
    .option('--gpu-count <n>', 'GPU count')
    .option('--gpu-memory-gb <gb>', 'memory of each GPU in GB')
    .option('--launch-command <cmd>', 'the server launch command (secrets are redacted)')
    .option('--engine-version <v>', 'engine version when the server does not report it')
    .option('--engine-commit <sha>', 'engine commit')
    .option('--quantization <q>', 'quantization, e.g. FP8')
    .option('--backend <b>', 'backend, e.g. cuda')
    .option('--build <b>', 'build, e.g. cuda-13.2')
    .option('--repository <r>', 'engine repository')
    .action(async (flags: ProbeFlags) => {
      const apiKey = resolveApiKey({ apiKey: flags.apiKey, apiKeyFile: flags.apiKeyFile, env: io.env });
      const hardware = {
        gpuName: flags.gpuName,
        gpuCount:
          flags.gpuCount === undefined ? undefined : Math.round(positive('--gpu-count', flags.gpuCount)),
        gpuMemoryGb:
          flags.gpuMemoryGb === undefined ? undefined : positive('--gpu-memory-gb', flags.gpuMemoryGb),
      };
      const probed = await probeTarget({
        baseUrl: flags.baseUrl,
        apiKey,
        model: flags.model,
        engine: flags.engine,
        fetchTimeoutMs: positive('--timeout', flags.timeout) * 1000,
        hardware,
        launchCommand: flags.launchCommand,
        engineFlags: {
          engineVersion: flags.engineVersion,
          engineCommit: flags.engineCommit,
          quantization: flags.quantization,
          backend: flags.backend,
          build: flags.build,
          repository: flags.repository,
        },
      });
      // The sim reports what `run` records: simulated hardware, never this machine's GPUs.
      const info = withoutLocalHardwareForSim(probed, hardware, flags.backend);
      const out = flags.json
        ? JSON.stringify(probeJson(info, flags.baseUrl), null, 2)
        : formatProbe(info, flags.baseUrl);
      io.stdout.write(out + '\n');
    });
}

function positive(flag: string, v: string | undefined): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0)
    throw new BenchError('USAGE', `${flag} must be a positive number, got "${v}".`);
  return n;
}
