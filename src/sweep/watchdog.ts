import type { ProcFs } from './procfs.js';
import { signalGroup, stopGroup, stopRecorded, type GroupSignal } from './stop-group.js';

// The watchdog of one sweep server (docs/sweep.md "Nothing lost, always resumable"): a process of its own, outside
// the sweep's group, holding a pipe from the sweep. When the pipe closes (the sweep exited, kill -9 included) it
// stops the server's group, SIGTERM then SIGKILL after the grace, each only while the group is still that launch's
// as `--resume` checks it from /proc (procfs.ts recordedGroup): a group that ended and whose id went to another
// program's group is left alone. Its shell predecessor sent `kill -KILL -PGID` 30 s after the sweep died,
// unchecked.

export const WATCHDOG_NAME = 'llm-inference-bench-sweep-watchdog'; // in its command line, to be found by it

export interface Watched {
  pid: number; // the server's group (its leader's pid)
  startTicks?: number | undefined; // the leader's start time, from /proc
  marker: string; // the launch's marker in the server's environment
  graceS: number;
}

export function watchdogArgs(w: Watched): string[] {
  return [WATCHDOG_NAME, String(w.pid), String(w.startTicks ?? '-'), w.marker, String(w.graceS)];
}

export function parseWatchdogArgs(argv: readonly string[]): Watched | undefined {
  const [name, pid, ticks, marker, grace] = argv;
  const w = {
    pid: Number(pid),
    ...(ticks !== '-' ? { startTicks: Number(ticks) } : {}),
    marker: marker ?? '',
    graceS: Number(grace),
  };
  const ok =
    name === WATCHDOG_NAME &&
    Number.isInteger(w.pid) &&
    w.pid > 1 &&
    (w.startTicks === undefined || Number.isFinite(w.startTicks)) &&
    w.marker !== '' &&
    Number.isFinite(w.graceS);
  return ok ? w : undefined;
}

/** The sweep is gone: stop its server's group while it is still the one the sweep started. */
export async function onSweepGone(w: Watched, fs: ProcFs, signal: GroupSignal = signalGroup): Promise<void> {
  if (fs.available) {
    await stopRecorded(w, w.graceS, fs, signal);
    return;
  }
  // Without /proc (macOS) a group cannot be told from a reused one: it is signalled unchecked, as it always was,
  // so that no server outlives its sweep there either.
  await stopGroup(w.pid, w.graceS, fs, undefined, signal);
}
