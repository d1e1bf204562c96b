import { isBenchError } from '../../src/errors.js';
import type { ParamSet } from '../../src/sweep/params.js';
import { parseStat, type ProcFs } from '../../src/sweep/procfs.js';

// "CODE: message" of the BenchError a call throws, or 'no error'.
export function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (isBenchError(e)) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'no error';
}

// A configuration as the params file gives it, named as expandParams names an unnamed one.
export const paramSet = (params: ParamSet['params'], env: ParamSet['env'] = {}, name?: string): ParamSet => ({
  name:
    name ??
    Object.entries(params)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(' '),
  params,
  env,
});

// /proc/<pid>/stat as Linux writes it (proc(5)): pid (comm) state ppid pgrp session tty tpgid flags ... starttime
export const stat = (pid: number, comm: string, state: string, ppid: number, pgrp: number, start: number) =>
  `${pid} (${comm}) ${state} ${ppid} ${pgrp} ${pgrp} 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 ${start} 1000 200 18446744073709551615\n`;

// A process table read as /proc, live: a test may change `procs` between reads (a process exits, a pid is reused).
export function fakeFs(procs: Array<{ stat: string; environ?: string }>): ProcFs {
  const find = (pid: number) => procs.find((p) => Number(p.stat.split(' ')[0]) === pid);
  return {
    available: true,
    pids: () => procs.map((p) => Number(p.stat.split(' ')[0])),
    stat: (pid) => {
      const p = find(pid);
      return p ? parseStat(p.stat) : undefined;
    },
    environ: (pid) => find(pid)?.environ,
  };
}
