import type { Command } from 'commander';
import type { CliIo } from './io.js';
import { withOptions } from '../config/resolve.js';
import { BenchError } from '../errors.js';
import { chooseProgress } from '../progress/index.js';
import { wrapProse } from '../format/index.js';
import { terminalWidth } from '../report/terminal.js';
import { wordsLines } from '../report/sweep-text.js';
import { resolveApiKey } from './api-key.js';
import { toRunSettings } from './run-settings.js';

// `sweep`: wiring only; the loop is src/sweep/sweep.ts, the report src/report/sweep-*.ts (docs/sweep.md).
export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('sweep')
    .description(
      'launch a server per configuration, measure the matrix against each, and name the fastest per cell',
    );
  const resolve = withOptions(cmd, 'sweep');
  cmd.action(async (flags: Record<string, unknown>) => {
    const { options, given } = resolve(flags);
    const apiKey = resolveApiKey({ apiKey: options.apiKey, apiKeyFile: options.apiKeyFile, env: io.env });
    const { prepareSweep, sweepPlan } = await import('../sweep/prepare.js');
    const p = prepareSweep(options, given, new Date().toISOString());
    const quiet = p.options.quiet === true;
    if (p.ignored.length > 0 && !quiet)
      io.stderr.write(
        `warning: --resume continues the sweep with its own settings; ignored: ${p.ignored.join(', ')}\n`,
      );
    if (options.dryRun) {
      const { dryRunRows, dryRunText } = await import('../sweep/dry-run.js');
      io.stdout.write(dryRunText(p, dryRunRows(p, apiKey)));
      return;
    }
    const [{ Sweep, interruptedError }, { writeReportsBeside, writeSweepReports }] = await Promise.all([
      import('../sweep/sweep.js'),
      import('./write-reports.js'),
    ]);
    const sweep = new Sweep(
      sweepPlan(p, (o) => toRunSettings(o, apiKey), apiKey),
      {
        say: (line) => {
          if (!quiet) io.stderr.write(`${wrapProse(line, terminalWidth(io.stderr))}\n`);
        },
        progress: () => chooseProgress({ quiet, stream: io.stderr }),
        writeRunReports: writeReportsBeside,
      },
    );
    let signals = 0;
    const onSignal = () => {
      signals += 1;
      if (signals > 1) {
        sweep.killServerNow();
        process.exit(130);
      }
      io.stderr.write('\ninterrupting: saving the run in progress and stopping the server...\n');
      sweep.interrupt();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let out;
    try {
      out = await sweep.start();
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    const reports = await writeSweepReports(out.dir);
    if (sweep.interrupted) throw interruptedError(out.dir);
    const lines = [`sweep: ${out.dir}`, ...reports.paths.map((r) => `report: ${r}`)];
    for (const r of out.failed) lines.push(`failed: ${r.name}: ${r.reason ?? 'unknown'}`);
    // The answer of the sweep where it ends, not only in the files (docs/sweep.md "The report").
    if (reports.model.contextLines.length)
      lines.push('', 'In words', ...wordsLines(reports.model, terminalWidth(io.stdout)));
    io.stdout.write(lines.join('\n') + '\n');
    if (out.failed.length === out.file.runs.length)
      throw new BenchError('TARGET_ERROR', `every configuration of the sweep failed (see ${out.dir}).`, {
        hint: 'Check the server logs named in the report, and the --serve-cmd with --dry-run.',
      });
  });
}
