import type { Command } from 'commander';
import { BenchError } from '../errors.js';
import { COMPARE_FORMATS, renderCompare, type CompareFormat } from '../report/index.js';
import { loadResult, writeOutput } from '../report/load.js';
import { terminalWidth, useColor } from '../report/terminal.js';
import { parseFormat } from './report.js';

export function register(program: Command): void {
  program
    .command('compare')
    .description(
      'compare two or more results: matrices side by side, B/A ratios, prefill overlaid, metadata differences',
    )
    .argument(
      '<results...>',
      'result files (or run directories, or v0.6.2 text reports); the first is the baseline A',
    )
    .option('--format <format>', `output format: ${COMPARE_FORMATS.join(', ')}`, 'txt')
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .option('--width <columns>', 'terminal width for txt (default: the terminal, else 80)')
    .action((paths: string[], opts: { format: string; output?: string; width?: string }) => {
      const format = parseFormat<CompareFormat>(opts.format, COMPARE_FORMATS);
      if (paths.length < 2) throw new BenchError('USAGE', 'compare needs at least two results.');
      const results = paths.map(loadResult);
      const width = opts.width === undefined ? terminalWidth(process.stdout) : Number(opts.width);
      if (!Number.isInteger(width) || width < 40)
        throw new BenchError('USAGE', `--width must be an integer of at least 40, not "${opts.width}".`);
      const text = renderCompare(results, format, { width, color: !opts.output && useColor(process.stdout) });
      if (opts.output) {
        writeOutput(opts.output, text);
        process.stderr.write(`wrote ${opts.output}\n`);
      } else process.stdout.write(text);
    });
}
