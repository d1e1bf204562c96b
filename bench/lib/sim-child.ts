// The simulated engine in its own process (`llm-inference-bench sim` from source), so the client under test does
// not share an event loop with the server. Pinned to the last core where taskset exists.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export interface SimChild {
  url: string;
  baseUrl: string;
  proc: ChildProcess;
  cpuMs(): number; // the child's CPU time so far (Linux /proc), NaN where unknown
  stop(): Promise<void>;
}

export async function startSimChild(o: {
  profile: Record<string, unknown> | string;
  profileFile?: string;
  truthLog?: string;
  seed?: number;
  pin?: boolean;
}): Promise<SimChild> {
  let profileArg = typeof o.profile === 'string' ? o.profile : '';
  if (typeof o.profile !== 'string') {
    if (!o.profileFile) throw new Error('profileFile is needed for an inline profile');
    writeFileSync(o.profileFile, JSON.stringify(o.profile));
    profileArg = o.profileFile;
  }
  const args = [MAIN, 'sim', '--profile', profileArg, '--seed', String(o.seed ?? 1), '--port', '0'];
  if (o.truthLog) args.push('--truth-log', o.truthLog);
  const cores = os.cpus().length;
  const pin = (o.pin ?? true) && cores >= 2 && existsSync('/usr/bin/taskset');
  const cmd = pin ? 'taskset' : process.execPath;
  const argv = pin
    ? ['-c', String(cores - 1), process.execPath, '--import', 'tsx', ...args]
    : ['--import', 'tsx', ...args];
  const proc = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  // The sim never outlives the benchmark, even when it is interrupted or times out.
  const killChild = () => proc.kill('SIGKILL');
  process.once('exit', killChild);
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.once(sig, () => {
      killChild();
      process.exit(130);
    });
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => {
      proc.kill('SIGKILL'); // never leave a half-started sim behind
      reject(new Error(`sim did not start within 120 s: ${err}`));
    }, 120_000);
    proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('http://'));
      if (line) {
        clearTimeout(t);
        resolve(line.trim());
      }
    });
    proc.once('exit', (code) => reject(new Error(`sim exited (${code}): ${err}`)));
  });
  return {
    url,
    baseUrl: `${url}/v1`,
    proc,
    cpuMs: () => procCpuMs(proc.pid),
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
        setTimeout(() => proc.kill('SIGKILL'), 5000).unref();
      }),
  };
}

// utime + stime of a process (Linux), in ms; the child of `taskset` execs node, so the pid is node's.
export function procCpuMs(pid: number | undefined): number {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return NaN;
  try {
    return statCpuMs(pid);
  } catch {
    return NaN;
  }
}

function statCpuMs(pid: number): number {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(f[11]) + Number(f[12]);
  return (ticks * 1000) / 100;
}
