import type { Command } from 'commander';
import { BenchError } from '../errors.js';

// Placeholder until the owning issue lands; replaced wholesale by the command's implementation.
export function register(program: Command): void {
  program
    .command('compare')
    .description('(not yet available)')
    .allowUnknownOption(true)
    .action(() => {
      throw new BenchError('USAGE', '`compare` is not available in this build.');
    });
}
