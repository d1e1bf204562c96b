import type { CliIo } from './io.js';
import type { Command } from 'commander';
import { BenchError } from '../errors.js';
import { COMPARE_FORMATS, renderCompare, type CompareFormat } from '../report/index.js';
import { writeFileAtomic as writeOutput } from '../results/io.js';
import { loadResult } from '../results/read.js';
import { terminalWidth, useColor } from '../report/terminal.js';
import { parseFormat } from './report.js';
import { compareModel } from '../report/compare-model.js';
import { allVerdicts, significantSlowdowns } from '../report/compare-verdicts.js';
import { parseFailOn } from '../stats/verdict.js';
import type { RunResult } from '../results/schema.js';

// The CI gate: a significant slowdown past the threshold anywhere fails the command, naming where.
function gate(results: RunResult[], failOn: number): void {
  const offending = allVerdicts(compareModel(results)).flatMap((vs) =>
    significantSlowdowns(vs, failOn).map(
      (v) =>
        `${vs.b.label} ${v.where} ${Math.round((v.comparison.change ?? 0) * 100)}%` +
        (v.comparison.changeHalfWidth !== null
          ? ` ± ${Math.round(v.comparison.changeHalfWidth * 100)}%`
          : ''),
    ),
  );
  if (offending.length)
    throw new BenchError(
      'REGRESSION',
      `${offending.length} significant slowdown${offending.length > 1 ? 's' : ''} beyond ${Math.round(failOn * 1000) / 10}% against A: ${offending.join('; ')}.`,
    );
}

export function register(program: Command, io: CliIo): void {
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
    .option(
      '--fail-on <percent>',
      'exit with code 12 when any run is significantly slower than A by more than this (e.g. 5%) in any cell or prefill point',
    )
    .action((paths: string[], opts: { format: string; output?: string; width?: string; failOn?: string }) => {
      const format = parseFormat<CompareFormat>(opts.format, COMPARE_FORMATS);
      if (paths.length < 2) throw new BenchError('USAGE', 'compare needs at least two results.');
      const failOn = opts.failOn === undefined ? undefined : parseFailOn(opts.failOn);
      if (failOn === null)
        throw new BenchError(
          'USAGE',
          `--fail-on takes a percentage between 0 and 100, such as 5%, not "${opts.failOn}".`,
        );
      const results = paths.map(loadResult);
      const width = opts.width === undefined ? terminalWidth(io.stdout) : Number(opts.width);
      if (!Number.isInteger(width) || width < 40)
        throw new BenchError('USAGE', `--width must be an integer of at least 40, not "${opts.width}".`);
      const text = renderCompare(results, format, {
        width,
        color: !opts.output && useColor(io.stdout, io.env),
      });
      if (opts.output) {
        writeOutput(opts.output, text);
        io.stderr.write(`wrote ${opts.output}\n`);
      } else io.stdout.write(text);
      if (failOn !== undefined) gate(results, failOn);
    });
}
