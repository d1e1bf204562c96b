import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { fsError } from '../fs-errors.js';
import { redactSecrets } from '../secrets.js';
import type { ServerCommand } from './command.js';
import { MARKER_ENV, procFs, type ProcFs } from './procfs.js';
import { groupAlive, signalGroup, stopGroup, type StopInfo } from './stop-group.js';
import { watchdogArgs } from './watchdog.js';
import { moduleProcessArgs } from '../worker-start.js';

// One server of a sweep as a process group of its own (docs/sweep.md "Per configuration"): started by /bin/sh in a new
// group, its output written line by line to a log with every registered secret redacted, stopped with SIGTERM to
// the whole group, SIGKILL after a grace period, and waited for until no process of the group is left. A
// watchdog process holds a pipe from the sweep: when the sweep dies, even by kill -9, the pipe closes and the
// watchdog stops the group the same way, so no server outlives its sweep (watchdog.ts).

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const TAIL_LINES = 20;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// A free TCP port on 127.0.0.1, picked by the kernel.
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

// Complete lines to the log, each redacted; a secret cut across two reads is whole by the time its line is.
class LogWriter {
  private fd: number | undefined;
  private partial = '';
  readonly tailLines: string[] = [];

  constructor(path: string) {
    try {
      mkdirSync(dirname(path), { recursive: true });
      this.fd = openSync(path, 'a');
    } catch (e) {
      throw fsError('WRITE_FAILED', `cannot write the server log ${path}`, e);
    }
  }

  // own: the sweep's note (# ...), kept in the log but not in the tail a failure reports
  line(text: string, own = false): void {
    const clean = redactSecrets(text);
    if (!own) this.tailLines.push(clean);
    if (this.tailLines.length > TAIL_LINES) this.tailLines.shift();
    if (this.fd === undefined) return;
    try {
      writeSync(this.fd, clean + '\n');
    } catch {
      // a full disk loses log lines, never the sweep
    }
  }

  data(chunk: string): void {
    const lines = (this.partial + chunk).split(/\r?\n/);
    this.partial = lines.pop() ?? '';
    for (const l of lines) this.line(l);
    if (this.partial.length > 64 * 1024) {
      this.line(this.partial);
      this.partial = '';
    }
  }

  close(): void {
    if (this.partial) this.line(this.partial);
    this.partial = '';
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

// What the sweep needs of a started server: ServerProcess, or a test's server in memory (docs/sweep.md).
export interface ServerHandle {
  readonly pid: number;
  readonly startTicks: number | undefined;
  readonly exited: Promise<ExitInfo>; // the leader's exit
  readonly gone: Promise<ExitInfo>; // no process of the group left
  readonly exitedWith: ExitInfo | undefined;
  tail(): string[]; // the log's last lines
  note(line: string): void; // a line of the sweep's own in the log
  stop(graceS: number): Promise<StopInfo>;
  killNow(): void;
}

export interface LaunchOptions {
  port: number;
  logPath: string;
  marker: string;
  graceS: number; // the watchdog's grace between SIGTERM and SIGKILL
  fs?: ProcFs;
}

export class ServerProcess implements ServerHandle {
  readonly pid: number;
  readonly startTicks: number | undefined;
  private readonly child: ChildProcess;
  private readonly watchdog: ChildProcess;
  private readonly log: LogWriter;
  private readonly fs: ProcFs;
  private exitInfo: ExitInfo | undefined;
  private stopping: Promise<StopInfo> | undefined;
  readonly exited: Promise<ExitInfo>;
  // Resolves when no process of the group is left (the leader may exit before a child it started).
  readonly gone: Promise<ExitInfo>;

  constructor(cmd: ServerCommand, o: LaunchOptions) {
    this.fs = o.fs ?? procFs();
    this.log = new LogWriter(o.logPath);
    this.log.line(`# ${new Date().toISOString()} sweep: ${cmd.shown}`, true);
    this.child = spawn('/bin/sh', ['-c', cmd.command], {
      detached: true, // a process group of its own: one signal reaches every process the server starts
      env: { ...process.env, ...cmd.env, [MARKER_ENV]: o.marker },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (this.child.pid === undefined) throw new Error('the server could not be spawned');
    this.pid = this.child.pid;
    this.startTicks = this.fs.stat(this.pid)?.startTicks;
    for (const s of [this.child.stdout!, this.child.stderr!]) {
      s.setEncoding('utf8');
      s.on('data', (d: string) => this.log.data(d));
    }
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
      this.child.on('error', (e) => {
        this.log.line(`# cannot start /bin/sh: ${e.message}`, true);
        this.exitInfo = { code: 127, signal: null };
        resolve(this.exitInfo);
      });
    });
    this.gone = this.exited.then(async (info) => {
      while (groupAlive(this.fs, this.pid)) await sleep(1000);
      return info;
    });
    // Its stdin ends when the sweep's end of the pipe closes (its exit, kill -9 included): watchdog.ts.
    const watched = { pid: this.pid, startTicks: this.startTicks, marker: o.marker, graceS: o.graceS };
    this.watchdog = spawn(
      process.execPath,
      [
        ...moduleProcessArgs(
          new URL('./watchdog-main.ts', import.meta.url),
          new URL('./watchdog-main.js', import.meta.url),
        ),
        ...watchdogArgs(watched),
      ],
      { detached: true, stdio: ['pipe', 'ignore', 'ignore'] },
    );
    this.watchdog.on('error', () => undefined);
    this.watchdog.stdin?.on('error', () => undefined);
  }

  get exitedWith(): ExitInfo | undefined {
    return this.exitInfo;
  }

  tail(): string[] {
    return [...this.log.tailLines];
  }

  note(line: string): void {
    this.log.line(`# ${new Date().toISOString()} ${line}`, true);
  }

  // Idempotent: the second caller waits for the first stop.
  stop(graceS: number): Promise<StopInfo> {
    this.stopping ??= (async () => {
      this.watchdog.kill('SIGKILL'); // its pid is ours until reaped: never a stranger's
      const info = await stopGroup(this.pid, graceS, this.fs);
      await Promise.race([this.exited, sleep(1000)]);
      this.log.close();
      return info;
    })();
    return this.stopping;
  }

  // Last resort on process exit (synchronous): the group is killed, not waited for.
  killNow(): void {
    this.watchdog.kill('SIGKILL');
    signalGroup(this.pid, 'SIGKILL');
  }
}

export const describeExit = (e: ExitInfo): string =>
  e.signal ? `was killed by ${e.signal}` : `exited with code ${e.code ?? 'unknown'}`;
