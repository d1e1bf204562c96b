import { basename, delimiter, dirname, isAbsolute, relative, resolve } from 'node:path';
import { TOOL_NAME } from './version.js';

// Every hint that names a command (usage errors, resume, next steps) prints the command that runs where the user
// is: `npx llm-inference-bench` after `npm ci` or through npx, the bare bin name when it is on the PATH (a global
// install), `node dist/cli/main.js` when started that way. One helper, so no hint drifts.

export interface Invocation {
  env: Readonly<Record<string, string | undefined>>;
  script?: string | undefined; // process.argv[1]: the bin link or the script node was given
  cwd?: string | undefined;
}

const NPX = `npx ${TOOL_NAME}`;
const samePath = (a: string, b: string) => resolve(a) === resolve(b);

// How this process was started, as a command a user can paste into a shell in the same folder.
export function invokedAs(i: Invocation): string {
  // npx, npm exec and npm run put node_modules/.bin on the PATH for the child only; npx finds the bin again.
  if (i.env.npm_command) return NPX;
  const script = i.script;
  if (!script) return NPX;
  if (basename(script) === TOOL_NAME) {
    const dir = dirname(script);
    const onPath = (i.env.PATH ?? '').split(delimiter).some((p) => p !== '' && samePath(p, dir));
    return onPath ? TOOL_NAME : NPX;
  }
  const cwd = i.cwd ?? process.cwd();
  const rel = relative(cwd, script);
  const shown = rel === '' || rel.startsWith('..') || isAbsolute(rel) ? script : rel;
  return `${script.endsWith('.ts') ? 'npx tsx' : 'node'} ${shellWord(shown)}`;
}

// A word the shell reads back unchanged: paths with spaces or quotes are single-quoted.
export function shellWord(s: string): string {
  if (s !== '' && /^[\w@%+=:,./~-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

let current: string | undefined;

// main() sets it once per invocation; library use (no main) falls back to what this process looks like.
export function setInvocation(command: string): void {
  current = command;
}

export function invocation(): string {
  return (current ??= invokedAs({ env: process.env, script: process.argv[1], cwd: process.cwd() }));
}

// The command line a hint prints: `cliCommand('run', '--resume', dir)` -> "npx llm-inference-bench run --resume
// results/x". Each argument is one shell word (quoted when it needs it); hints wrap the line in backticks.
export function cliCommand(...args: readonly string[]): string {
  return [invocation(), ...args.map(shellWord)].join(' ');
}
