import type { CliIo } from './io.js';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { withOptions } from '../config/resolve.js';
import { renderReport } from '../report/index.js';
import { writeFileAtomic as writeOutput } from '../results/io.js';
import { loadResult, resolveResultPath } from '../results/read.js';
import { terminalWidth, useColor } from '../report/terminal.js';

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('report')
    .description('render a result file as text, Markdown, HTML, CSV or JSON')
    .argument('<result>', 'result.json, its run directory, or a v0.6.2 text report');
  const resolve = withOptions(cmd, 'report');
  cmd.action((resultPath: string, flags: Record<string, unknown>) => {
    const o = resolve(flags).options;
    const result = loadResult(resultPath);
    const output =
      o.output ??
      (o.format === 'html' ? join(dirname(resolveResultPath(resultPath)), 'report.html') : undefined);
    const text = renderReport(result, o.format, {
      width: o.width ?? terminalWidth(io.stdout),
      color: !output && useColor(io.stdout, io.env),
      ...(o.slo ? { slo: o.slo } : {}),
    });
    if (output) {
      writeOutput(output, text);
      io.stderr.write(`wrote ${output}\n`);
    } else io.stdout.write(text);
  });
}
