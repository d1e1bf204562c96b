// A server process started by a test: its own process group (nginx's workers go with their master), stopped by
// SIGTERM then SIGKILL, and killed when the test process exits so no server outlives its test.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const p of running) killGroup(p, 'SIGKILL');
});

function killGroup(p: ChildProcess, signal: NodeJS.Signals): void {
  if (p.pid === undefined || p.exitCode !== null || p.signalCode !== null) return;
  try {
    process.kill(-p.pid, signal);
  } catch {
    // already gone
  }
}

export interface ServerProcess {
  proc: ChildProcess;
  /** The port the server printed ("PORT <n>"), or the one it was given. */
  port: number;
  /** stdout and stderr so far (the tail), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The port the server listens on, when it does not print "PORT <n>": ready once it accepts a connection. */
  port?: number;
  readyTimeoutMs?: number;
}

export async function startProcess(
  cmd: string,
  args: string[],
  opts: StartOptions = {},
): Promise<ServerProcess> {
  const proc = spawn(cmd, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  let out = '';
  const keep = (d: Buffer) => {
    out = (out + d.toString('utf8')).slice(-8000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  void exited.then(() => running.delete(proc));
  const stop = async () => {
    killGroup(proc, 'SIGTERM');
    const t = setTimeout(() => killGroup(proc, 'SIGKILL'), 3000);
    await exited;
    clearTimeout(t);
    killGroup(proc, 'SIGKILL'); // workers left in the group, if any
  };
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const fail = (why: string) => reject(new Error(`${cmd} ${why}:\n${out}`));
      proc.once('error', (e) => fail(`could not start: ${e.message}`));
      proc.once('exit', (code, sig) => fail(`exited (${code ?? sig}) before it was ready`));
      const timer = setTimeout(() => fail('was not ready in time'), deadline - Date.now());
      timer.unref();
      if (opts.port === undefined) {
        proc.stdout!.on('data', () => {
          const m = /^PORT (\d+)$/m.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(Number(m[1]));
          }
        });
      } else {
        const port = opts.port;
        void (async () => {
          while (Date.now() < deadline && proc.exitCode === null) {
            if (await accepts(port)) {
              clearTimeout(timer);
              resolve(port);
              return;
            }
            await new Promise((r) => setTimeout(r, 25));
          }
        })();
      }
    });
    return { proc, port, output: () => out, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** A port free now on 127.0.0.1 (for servers that cannot bind port 0 and say which they got). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A temporary folder, removed by the returned function. */
export function scratchDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `llmib-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
