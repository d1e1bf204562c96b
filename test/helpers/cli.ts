import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

// Runs the real CLI from source through tsx (no build step, so tests see the working tree).
export function runCli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
      cwd: opts.cwd ?? REPO_ROOT,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

export function cliCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: ['--import', 'tsx', MAIN] };
}

// Runs the CLI in this process through main(): same argv, same exit code and output as the bin, without the
// cost of starting Node and tsx. Only for commands that need no real process (signals, exit, stdin).
export async function runCliInProcess(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
  });
  return { code, signal: null, stdout, stderr };
}

/** Printed prose read as one line per paragraph: a line over 80 columns continues two spaces in (wrapProse). */
export const unwrapped = (text: string): string => text.replace(/\n {2}(?=\S)/g, ' ');
