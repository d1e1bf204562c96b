import type { CliIo } from './io.js';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { withOptions } from '../config/resolve.js';
import { analysisOf } from '../answer/analysis.js';
import { renderReport } from '../report/index.js';
import { writeFileAtomic as writeOutput } from '../results/io.js';
import { resolveResultPath } from '../results/read.js';
import { resultReader } from './load-result.js';
import { isSweepDir, loadSweep } from '../results/sweep-io.js';
import { renderSweep } from '../report/sweep.js';
import { terminalWidth, useColor } from '../report/terminal.js';

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('report')
    .description('render a result file as text, Markdown, HTML, CSV or JSON')
    .argument(
      '<result>',
      'result.json, its run folder, a folder holding one run (run --out), a sweep folder, or a v0.6.2 text report',
    );
  const resolve = withOptions(cmd, 'report');
  cmd.action((resultPath: string, flags: Record<string, unknown>) => {
    const o = resolve(flags).options;
    const sweep = isSweepDir(resultPath);
    const output =
      o.output ??
      (o.format === 'html'
        ? join(sweep ? resultPath : dirname(resolveResultPath(resultPath)), 'report.html')
        : undefined);
    const textOptions = {
      width: o.width ?? terminalWidth(io.stdout),
      color: !output && useColor(io.stdout, io.env),
    };
    let text: string;
    if (sweep) {
      const { file, results } = loadSweep(resultPath);
      text = renderSweep(file, results, o.format, { ...textOptions, ...(o.slo ? { slo: o.slo } : {}) });
    } else {
      const result = resultReader(io)(resultPath);
      // The answer under --slo, once, with the suggested changes' effects where a twin of the run can be fitted
      // (docs/report.md "The answer"); the CSV's columns need no what-if.
      const analysis = analysisOf(result, o.slo, { whatIf: o.format !== 'csv' });
      text = renderReport(result, o.format, { ...textOptions, analysis });
    }
    if (output) {
      writeOutput(output, text);
      io.stderr.write(`wrote ${output}\n`);
    } else io.stdout.write(text);
  });
}
