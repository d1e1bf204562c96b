import type { CliIo } from './io.js';
import type { Command } from 'commander';
import type { RunOutcome } from '../bench/run.js';
import type { RunSettings } from '../bench/settings.js';
import { addOptions, resolveOptions } from '../config/resolve.js';
import { BenchError } from '../errors.js';
import { chooseProgress, type ProgressSink } from '../progress/index.js';
import { resolveApiKey } from './api-key.js';
import { toRunSettings } from './run-settings.js';

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('run')
    .description(
      'measure a server: prefill by context, sustained decode by concurrency; writes <out>/<runId>/result.json',
    );
  addOptions(cmd, 'run');
  cmd.action(async (flags: Record<string, unknown>) => {
    const o = resolveOptions('run', flags, (k) => cmd.getOptionValueSource(k) === 'cli');
    const apiKey = resolveApiKey({ apiKey: o.apiKey, apiKeyFile: o.apiKeyFile, env: io.env });
    const settings = toRunSettings(o, apiKey);
    const progress = chooseProgress({ quiet: o.quiet === true, stream: io.stderr });
    const out = await runWithSignals(settings, progress, io);
    printOutcome(out, o.quiet === true, io);
  });
}

// Ctrl-C (or SIGTERM): abort in-flight requests, keep finished cells, mark the result interrupted. A second
// Ctrl-C exits at once (the last checkpoint is already on disk).
export async function runWithSignals(
  settings: RunSettings,
  progress: ProgressSink,
  io: CliIo,
): Promise<RunOutcome> {
  const { BenchRun } = await import('../bench/run.js'); // loaded on use: other commands start faster
  const run = new BenchRun(settings, { progress });
  let signals = 0;
  const onSignal = () => {
    signals += 1;
    if (signals > 1) process.exit(130);
    const msg = 'interrupting: aborting the cell in progress and saving the result...';
    if (progress.note) progress.note(msg);
    else io.stderr.write(`\n${msg}\n`);
    run.interrupt();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let out: RunOutcome;
  try {
    out = await run.start();
  } catch (e) {
    progress.close?.(); // the error then starts on a line of its own, below the live view
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (run.interrupted) {
    progress.close?.();
    throw new BenchError(
      'INTERRUPTED',
      `run interrupted; ${out.result.decode.length} finished cells kept in ${out.resultPath}.`,
      {
        hint: `Continue it with: llm-inference-bench run --resume ${out.dir}`,
      },
    );
  }
  progress.finish(`done: ${out.result.decode.length} cells, ${out.result.prefill.length} prefill points`);
  return out;
}

export function printOutcome(out: RunOutcome, quiet: boolean, io: CliIo): void {
  const lines = [`result: ${out.resultPath}`, ...out.reports.map((r) => `report: ${r}`)];
  if (!quiet && out.reports.length === 0)
    lines.push('report: not written (the report module is not available in this build)');
  for (const w of quiet ? [] : out.result.warnings) lines.push(`warning: ${w}`);
  io.stdout.write(lines.join('\n') + '\n');
}
