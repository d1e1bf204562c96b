import type { Command } from 'commander';
import { withOptions } from '../config/resolve.js';
import { cliCommand } from '../invocation.js';
import { renderShare } from '../report/share.js';
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
    const text = renderShare(resultReader(io)(resultPath), {
      ...(o.slo ? { slo: o.slo } : {}),
      reportCommand: cliCommand('report', resultPath),
    });
    if (o.output) {
      writeOutput(o.output, text);
      io.stderr.write(`wrote ${o.output}\n`);
    } else io.stdout.write(text);
  });
}
