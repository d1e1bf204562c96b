import type { CliIo } from './io.js';
import type { Command } from 'commander';
import { BenchError } from '../errors.js';
import { withOptions } from '../config/resolve.js';
import { renderCompare } from '../report/index.js';
import { writeFileAtomic as writeOutput } from '../results/io.js';
import { resultReader } from './load-result.js';
import { terminalWidth, useColor } from '../report/terminal.js';
import { compareModel } from '../report/compare-model.js';
import {
  allVerdicts,
  clientSlowdowns,
  notJudged,
  significantSlowdowns,
  verdictLine,
} from '../report/compare-verdicts.js';
import type { RunResult, ServiceLevel } from '../results/schema.js';

// The CI gate: a significant slowdown past the threshold anywhere fails the command, naming where. What it could
// not judge (no interval), and the slowdowns a client shaped (docs/ci.md), are said on stderr, pass or fail.
function gate(results: RunResult[], failOn: number, io: CliIo, slo?: ServiceLevel): void {
  const sets = allVerdicts(compareModel(results), slo);
  for (const vs of sets) {
    for (const l of notJudged(vs)) io.stderr.write(`note: the gate did not judge ${vs.b.label}: ${l}\n`);
    for (const v of clientSlowdowns(vs, failOn))
      io.stderr.write(`note: the gate did not count ${vs.b.label} ${verdictLine(v, vs)}\n`);
  }
  const offending = sets.flatMap((vs) =>
    significantSlowdowns(vs, failOn).map(
      (v) =>
        `${vs.b.label} ${v.where}${v.level ? ` ${v.figure}` : ''} ${Math.round((v.comparison.change ?? 0) * 100)}%` +
        (v.comparison.changeHalfWidth !== null
          ? ` ± ${Math.round(v.comparison.changeHalfWidth * 100)}%`
          : ''),
    ),
  );
  if (offending.length)
    throw new BenchError(
      'REGRESSION',
      `${offending.length} significant slowdown${offending.length > 1 ? 's' : ''}` +
        (failOn > 0 ? ` beyond ${Math.round(failOn * 1000) / 10}%` : '') +
        ` against A (99% test; ± is the 95% interval): ${offending.join('; ')}.`,
    );
}

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('compare')
    .description(
      'compare two or more results: matrices side by side, B/A ratios, prefill overlaid, metadata differences',
    )
    .argument(
      '<results...>',
      'result files (or run folders, folders holding one run, v0.6.2 text reports); the first is the baseline A',
    );
  const resolve = withOptions(cmd, 'compare');
  cmd.action((paths: string[], flags: Record<string, unknown>) => {
    const o = resolve(flags).options;
    if (paths.length < 2)
      throw new BenchError('USAGE', `compare needs at least two results; it got ${paths.length}.`, {
        hint: 'Pass the baseline first, then the runs to compare with it (result files or run folders).',
      });
    const results = paths.map(resultReader(io));
    const text = renderCompare(results, o.format, {
      width: o.width ?? terminalWidth(io.stdout),
      color: !o.output && useColor(io.stdout, io.env),
      ...(o.slo ? { slo: o.slo } : {}),
      ...(o.verbose ? { verbose: true } : {}),
    });
    if (o.output) {
      writeOutput(o.output, text);
      io.stderr.write(`wrote ${o.output}\n`);
    } else io.stdout.write(text);
    if (o.failOn !== undefined) gate(results, o.failOn, io, o.slo);
  });
}
