import type { Command } from 'commander';
import { withOptions } from '../config/resolve.js';
import { cliCommand } from '../invocation.js';
import { renderShare } from '../report/share.js';
import { analysisOf } from '../answer/analysis.js';
import { formatServiceLevel } from '../stats/slo.js';
import { writeFileAtomic as writeOutput } from '../results/io.js';
import type { CliIo } from './io.js';
import { resultReader } from './load-result.js';

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('share')
    .description('a short Markdown summary of a result to paste into an issue or a pull request')
    .argument('<result>', 'result.json, its run directory, or a v0.6.2 text report');
  const resolve = withOptions(cmd, 'share');
  cmd.action((resultPath: string, flags: Record<string, unknown>) => {
    const o = resolve(flags).options;
    const result = resultReader(io)(resultPath);
    const text = renderShare(result, {
      // The answer with the what-if's advice, as the reports give it (docs/quick.md "share").
      analysis: analysisOf(result, o.slo),
      // The command writes what the footer names: the HTML report beside the result, judged by the same level.
      reportCommand: cliCommand(
        'report',
        resultPath,
        ...(o.slo ? ['--slo', formatServiceLevel(o.slo)] : []),
        '--format',
        'html',
      ),
    });
    if (o.output) {
      writeOutput(o.output, text);
      io.stderr.write(`wrote ${o.output}\n`);
    } else io.stdout.write(text);
  });
}
