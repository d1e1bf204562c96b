import { groupMembers, procFs, recordedGroup, type ProcFs } from './procfs.js';

// Stopping a server's process group (docs/sweep.md "Per configuration"): SIGTERM to the whole group, SIGKILL after
// a grace period, then waiting until no process of it is left; a recorded group only while it is still the
// launch's, as /proc tells (procfs.ts).

export interface StopInfo {
  forced: boolean; // SIGKILL was needed
  lingering: number; // processes still there after the last wait (should be 0)
}

const POLL_MS = 100;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function groupAlive(fs: ProcFs, pgid: number): boolean {
  if (fs.available) return groupMembers(fs, pgid).length > 0;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type GroupSignal = (pgid: number, signal: NodeJS.Signals) => void;

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

// SIGTERM to the group, SIGKILL after the grace period, then wait until every process has exited.
export async function stopGroup(
  pgid: number,
  graceS: number,
  fs: ProcFs = procFs(),
  alive: () => boolean = () => groupAlive(fs, pgid),
  signal: GroupSignal = signalGroup,
): Promise<StopInfo> {
  if (!alive()) return { forced: false, lingering: 0 };
  signal(pgid, 'SIGTERM');
  const graceEnd = performance.now() + graceS * 1000;
  while (alive() && performance.now() < graceEnd) await sleep(POLL_MS);
  if (!alive()) return { forced: false, lingering: 0 };
  signal(pgid, 'SIGKILL');
  const end = performance.now() + 30_000; // a process in uninterruptible sleep (D) takes its time
  while (alive() && performance.now() < end) await sleep(POLL_MS);
  return { forced: true, lingering: fs.available ? groupMembers(fs, pgid).length : alive() ? 1 : 0 };
}

// A server an earlier sweep left running (its sweep was killed with -9 and the watchdog too), or the one a
// watchdog guards once its sweep is gone: stopped while its recorded group still belongs to that launch, checked
// again before each signal (the group may end during the grace, and its id go to another program's group).
// Returns how many processes it found.
export async function stopRecorded(
  rec: { pid: number; startTicks?: number | undefined; marker: string },
  graceS: number,
  fs: ProcFs = procFs(),
  signal: GroupSignal = signalGroup,
): Promise<number> {
  if (!fs.available) return 0; // without /proc a pid cannot be told apart from a reused one: left alone
  const found = recordedGroup(fs, rec).length;
  if (found === 0) return 0;
  await stopGroup(rec.pid, graceS, fs, () => recordedGroup(fs, rec).length > 0, signal);
  return found;
}
