import { Command } from 'commander';
import { addOptions, resolveOptions, type Resolved } from '../../src/config/index.js';

/** `run`'s flags through the CLI's own option table and resolution, as main() reads them (no action run). */
export function parseRunFlags(argv: string[]): Resolved<'run'> {
  const program = new Command().exitOverride();
  const cmd = addOptions(program.command('run'), 'run');
  let out: Resolved<'run'> | undefined;
  cmd.action((opts: Record<string, unknown>) => {
    out = resolveOptions('run', opts, (k) => cmd.getOptionValueSource(k) === 'cli');
  });
  program.parse(['run', ...argv], { from: 'user' });
  return out!;
}
