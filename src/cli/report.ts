import type { CliIo } from './io.js';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { BenchError } from '../errors.js';
import { REPORT_FORMATS, renderReport, type ReportFormat } from '../report/index.js';
import { writeFileAtomic as writeOutput } from '../results/io.js';
import { loadResult, resolveResultPath } from '../results/read.js';
import { terminalWidth, useColor } from '../report/terminal.js';

export function parseFormat<T extends string>(value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new BenchError('USAGE', `unknown format "${value}"; use one of ${allowed.join(', ')}.`);
}

export function register(program: Command, io: CliIo): void {
  program
    .command('report')
    .description('render a result file as text, Markdown, HTML, CSV or JSON')
    .argument('<result>', 'result.json, its run directory, or a v0.6.2 text report')
    .option('--format <format>', `output format: ${REPORT_FORMATS.join(', ')}`, 'txt')
    .option('-o, --output <file>', 'write to this file (HTML defaults to report.html beside the result)')
    .option('--width <columns>', 'terminal width for txt (default: the terminal, else 80)')
    .action((resultPath: string, opts: { format: string; output?: string; width?: string }) => {
      const format = parseFormat<ReportFormat>(opts.format, REPORT_FORMATS);
      const result = loadResult(resultPath);
      const width = opts.width === undefined ? terminalWidth(io.stdout) : Number(opts.width);
      if (!Number.isInteger(width) || width < 40)
        throw new BenchError('USAGE', `--width must be an integer of at least 40, not "${opts.width}".`);
      const output =
        opts.output ??
        (format === 'html' ? join(dirname(resolveResultPath(resultPath)), 'report.html') : undefined);
      const text = renderReport(result, format, { width, color: !output && useColor(io.stdout, io.env) });
      if (output) {
        writeOutput(output, text);
        io.stderr.write(`wrote ${output}\n`);
      } else io.stdout.write(text);
    });
}
