import { fsError } from '../fs-errors.js';
import type { CliIo } from './io.js';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { withOptions } from '../config/resolve.js';
import { writeFileAtomic as writeOutput } from '../results/io.js';
import { importV062Text } from '../results/import-v062.js';

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('import')
    .description('convert a v0.6.2 report (its text form) into a result file that report and compare read')
    .argument('<file>', 'the v0.6.2 report as text');
  const resolve = withOptions(cmd, 'import');
  cmd.action((file: string, flags: Record<string, unknown>) => {
    const { output } = resolve(flags).options;
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
    if (output) {
      writeOutput(output, json);
      io.stderr.write(`wrote ${output}\n`);
    } else io.stdout.write(json);
  });
}
