import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { TOOL_NAME } from '../../src/version.js';
import { afterAll, beforeAll } from 'vitest';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { REPO_ROOT } from './cli.js';

// A user's shell after `npm ci` in the clone, without a global install: no npm_* variables (no npm script or npx
// around it) and no node_modules/.bin on the PATH. What a hint prints must run there as pasted.
export function userShellEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_/i.test(k) || k === 'INIT_CWD' || k === 'NODE_OPTIONS' || k.startsWith('VITEST')) continue;
    env[k] = v;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((p) => p !== '' && !p.includes('node_modules'))
    .join(delimiter);
  env.NO_COLOR = '1';
  return env;
}

// A folder inside the clone (npx finds the project from there), ignored by git: what a pasted command writes
// under its working folder (results/) lands here.
export function folderInClone(prefix: string): string {
  const base = join(REPO_ROOT, 'test-artifacts');
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, `${prefix}-`));
}

// What `npm ci` leaves: dist/ built from this working tree (its prepare script), which npx then runs.
export function buildLikeNpmCi(): void {
  execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'ignore', env: userShellEnv() });
}

// The command lines a CLI output offers, each between backticks; a tool name outside backticks is a hint
// that cannot be collected (and so was never checked), which fails here too.
export function hintCommands(text: string): string[] {
  const inTicks = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  const commands = inTicks.filter((c) => new RegExp(`(^|\\s)${TOOL_NAME}(\\s|$)`).test(c));
  const outside = text.replace(/`[^`\n]+`/g, '').split('\n');
  const stray = outside.filter((l) => new RegExp(`(^|[\\s(:])${TOOL_NAME} [a-z]`).test(l));
  if (stray.length) throw new Error(`a command outside backticks: ${stray.join(' | ')}`);
  return commands;
}

export interface Pasted {
  line: string;
  code: number | null;
  stdout: string;
  stderr: string;
  stillRunning: boolean; // a server (sim, serve) or a long run, stopped after the wait
}

// A server said it is up, or a run printed its plan and started measuring.
const STARTED = /Ctrl-C to stop|^run \S+: .* writing /m;

// Runs one line through /bin/sh as a user would paste it. A command still running once it says it started (or
// after `waitMs`) counts as started (servers never end); it is left running until `stopAll()`, so a following
// command can use it.
export function paste(
  line: string,
  opts: { cwd?: string; waitMs?: number; running?: ChildProcess[]; toTheEnd?: boolean } = {},
): Promise<Pasted> {
  const child = spawn('/bin/sh', ['-c', line], {
    cwd: opts.cwd ?? REPO_ROOT,
    env: userShellEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: npx, node and what they start are stopped together
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    const started = () => {
      clearTimeout(timer);
      clearInterval(poll);
      opts.running?.push(child);
      resolve({ line, code: null, stdout, stderr, stillRunning: true });
    };
    const timer = setTimeout(started, opts.waitMs ?? 60_000);
    const poll = setInterval(() => !opts.toTheEnd && STARTED.test(stdout + stderr) && started(), 100);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      resolve({ line, code, stdout, stderr, stillRunning: false });
    });
  });
}

export async function stopAll(running: ChildProcess[]): Promise<void> {
  await Promise.all(
    running.splice(0).map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.on('close', () => resolve());
          try {
            process.kill(-c.pid!, 'SIGTERM');
          } catch {
            resolve();
          }
        }),
    ),
  );
}

// What must never follow a pasted hint.
export function pastedProblem(p: Pasted): string | undefined {
  const all = `${p.stdout}${p.stderr}`;
  if (p.code === 127 || /command not found|^(ba|da)?sh: (\d+: )?.*: not found$/m.test(p.stderr))
    return `command not found: ${p.line}\n${all}`;
  if (/^npm (error|ERR!) /m.test(p.stderr)) return `npx could not find it: ${p.line}\n${all}`;
  if (/error \[USAGE\]/.test(all)) return `a USAGE error: ${p.line}\n${all}`;
  return undefined;
}

// For a describe block: dist/ built as npm ci builds it, and a tiny sim on 127.0.0.1 for the pasted commands.
export function builtCliAndSim(): () => SimHandle {
  let sim: SimHandle | undefined;
  beforeAll(async () => {
    buildLikeNpmCi();
    sim = await startSim({ profile: 'tiny', host: '127.0.0.1', port: 0, seed: 7 });
  }, 120_000);
  afterAll(async () => sim?.close());
  return () => sim!;
}
