import { fsError } from '../fs-errors.js';
import type { CliIo } from './io.js';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { writeFileAtomic as writeOutput } from '../results/io.js';
import { importV062Text } from '../results/import-v062.js';

export function register(program: Command, io: CliIo): void {
  program
    .command('import')
    .description('convert a v0.6.2 report (its text form) into a result file that report and compare read')
    .argument('<file>', 'the v0.6.2 report as text')
    .option('-o, --output <file>', 'write the result here (default: stdout)')
    .action((file: string, opts: { output?: string }) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (e) {
        throw fsError('RESULT_INVALID', `cannot read ${file}`, e);
      }
      const result = importV062Text(text);
      // [0] is the standing note about what v0.6.2 reports lack; the rest is damage the cross-check found.
      for (const w of result.warnings.slice(1)) io.stderr.write(`warning: ${w}\n`);
      const json = JSON.stringify(result, null, 2) + '\n';
      if (opts.output) {
        writeOutput(opts.output, json);
        io.stderr.write(`wrote ${opts.output}\n`);
      } else io.stdout.write(json);
    });
}
