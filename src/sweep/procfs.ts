import { readdirSync, readFileSync } from 'node:fs';

// The processes of a server's group, read from Linux /proc: a group is gone only when none of its processes
// is left (vLLM's workers hold GPU memory after the API server has closed its port), and a pid recorded by an
// earlier sweep is only signalled while the process still carries that launch's marker in its environment.

export const MARKER_ENV = 'LLM_BENCH_SWEEP_SERVER';

export interface ProcStat {
  pid: number;
  state: string; // R, S, D, Z...
  ppid: number;
  pgrp: number;
  startTicks: number; // clock ticks after boot: a reused pid has another
}

// One /proc/<pid>/stat line; the command name sits in parentheses and may hold spaces or parentheses itself.
export function parseStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const f = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const n = (i: number) => Number(f[i]);
  if (!Number.isInteger(pid) || f.length < 20 || [n(1), n(2), n(19)].some((x) => !Number.isFinite(x)))
    return undefined;
  return { pid, state: f[0]!, ppid: n(1), pgrp: n(2), startTicks: n(19) };
}

// NUL-separated NAME=value pairs of /proc/<pid>/environ.
export function environHas(environ: string, name: string, value: string): boolean {
  return environ.split('\0').includes(`${name}=${value}`);
}

export interface ProcFs {
  available: boolean; // /proc is there (Linux)
  stat(pid: number): ProcStat | undefined;
  environ(pid: number): string | undefined;
  pids(): number[];
}

export function procFs(root = '/proc'): ProcFs {
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  };
  let available = true;
  try {
    readdirSync(`${root}/self`);
  } catch {
    available = false;
  }
  return {
    available,
    stat: (pid) => {
      const t = read(`${root}/${pid}/stat`);
      return t === undefined ? undefined : parseStat(t);
    },
    environ: (pid) => read(`${root}/${pid}/environ`),
    pids: () => {
      try {
        return readdirSync(root)
          .filter((d) => /^\d+$/.test(d))
          .map(Number);
      } catch {
        return [];
      }
    },
  };
}

// The live (not zombie) processes of a group.
export function groupMembers(fs: ProcFs, pgid: number): ProcStat[] {
  const out: ProcStat[] = [];
  for (const pid of fs.pids()) {
    const s = fs.stat(pid);
    if (s && s.pgrp === pgid && s.state !== 'Z') out.push(s);
  }
  return out;
}

// The processes of a recorded group that still belong to that launch: in the group and carrying its marker,
// or the leader itself with its recorded start time (a server that cleared its environment).
export function recordedGroup(
  fs: ProcFs,
  rec: { pid: number; startTicks?: number; marker: string },
): ProcStat[] {
  return groupMembers(fs, rec.pid).filter((s) => {
    if (s.pid === rec.pid && rec.startTicks !== undefined && s.startTicks === rec.startTicks) return true;
    const env = fs.environ(s.pid);
    return env !== undefined && environHas(env, MARKER_ENV, rec.marker);
  });
}
