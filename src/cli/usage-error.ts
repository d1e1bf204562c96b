import type { CommanderError } from 'commander';
import { BenchError } from '../errors.js';
import { cliCommand } from '../invocation.js';

// Commander's own outcomes that are not mistakes: help and version were asked for.
const NOT_ERRORS = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

export const isUsageMistake = (e: CommanderError): boolean => !NOT_ERRORS.has(e.code);

// Commander's parse errors (unknown flag, missing argument, bad choice) as the tool's USAGE error, with its
// suggestion kept and a pointer to the command's --help; main prints it like every other error.
export function usageError(
  e: CommanderError,
  argv: readonly string[],
  commands: readonly string[],
): BenchError {
  const text = e.message
    .replace(/^error:\s*/, '')
    .replace(/\s*\n\s*\(Did you mean (.+)\?\)\s*$/s, ' (did you mean $1?)')
    .replace(/\s*\n\s*/g, ' ')
    .trim()
    .replace(/\.$/, '');
  const cmd = argv.find((a) => commands.includes(a));
  const help = cmd ? cliCommand(cmd, '--help') : cliCommand('--help');
  return new BenchError('USAGE', `${text}.`, { hint: `Run \`${help}\` for the options.` });
}
