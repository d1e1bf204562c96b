import { describe, expect, it } from 'vitest';
import { MARKER_ENV } from '../../src/sweep/procfs.js';
import {
  onSweepGone,
  parseWatchdogArgs,
  watchdogArgs,
  WATCHDOG_NAME,
  type Watched,
} from '../../src/sweep/watchdog.js';
import { fakeFs, stat } from './helpers.js';

// The sweep's watchdog once the sweep is gone (docs/sweep.md "Nothing lost, always resumable"), on an injected
// process table: it signals the server's group only while the group is still the launch's, checked from /proc
// before each signal as --resume checks it. Its shell predecessor sent SIGKILL to the recorded group id after the
// grace whatever held it by then.

const W: Watched = { pid: 4200, startTicks: 777, marker: 'm-1f2e', graceS: 0.05 };
const MARK = `PATH=/bin\0${MARKER_ENV}=m-1f2e\0`;
const server = () => [
  { stat: stat(4200, 'sh', 'S', 1, 4200, 777), environ: MARK },
  { stat: stat(4201, 'python3', 'S', 4200, 4200, 780), environ: MARK },
];
// Another program whose group took the id: a new leader with pid 4200, its own start time, no marker.
const stranger = { stat: stat(4200, 'backup.sh', 'S', 1, 4200, 99_000), environ: 'PATH=/bin\0' };

type Sent = Array<[number, string]>;

describe('the watchdog, when its sweep is gone', () => {
  it('still the server: SIGTERM to its group, and SIGKILL after the grace when it stays', async () => {
    const procs = server();
    const sent: Sent = [];
    await onSweepGone(W, fakeFs(procs), (pgid, sig) => {
      sent.push([pgid, sig]);
      if (sig === 'SIGKILL') procs.splice(0); // it ignored SIGTERM
    });
    expect(sent).toEqual([
      [4200, 'SIGTERM'],
      [4200, 'SIGKILL'],
    ]);
  });

  it('the server ends on SIGTERM and its group id goes to another program within the grace: no SIGKILL', async () => {
    const procs = server();
    const sent: Sent = [];
    await onSweepGone({ ...W, graceS: 30 }, fakeFs(procs), (pgid, sig) => {
      sent.push([pgid, sig]);
      procs.splice(0, procs.length, stranger);
    });
    expect(sent).toEqual([[4200, 'SIGTERM']]);
  });

  it('the group id already belongs to another program: nothing is signalled', async () => {
    const sent: Sent = [];
    await onSweepGone(W, fakeFs([stranger]), (pgid, sig) => sent.push([pgid, sig]));
    expect(sent).toEqual([]);
    // a worker left in the group with the marker is still the launch's, though its leader is gone
    const worker = [server()[1]!];
    await onSweepGone(W, fakeFs(worker), (pgid, sig) => {
      sent.push([pgid, sig]);
      worker.splice(0);
    });
    expect(sent).toEqual([[4200, 'SIGTERM']]);
  });

  it('is started with what it checks, and refuses anything else', () => {
    const args = watchdogArgs(W);
    expect(args[0]).toBe(WATCHDOG_NAME);
    expect(parseWatchdogArgs(args)).toEqual(W);
    const { startTicks: _t, ...noTicks } = W;
    expect(parseWatchdogArgs(watchdogArgs(noTicks))).toEqual(noTicks);
    expect(parseWatchdogArgs(['other', '4200', '777', 'm', '1'])).toBeUndefined();
    expect(parseWatchdogArgs([WATCHDOG_NAME, '1', '777', 'm', '1'])).toBeUndefined(); // never init's group
    expect(parseWatchdogArgs([WATCHDOG_NAME, '4200', '777', '', '1'])).toBeUndefined();
  });
});
