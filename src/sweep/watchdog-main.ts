import { procFs } from './procfs.js';
import { onSweepGone, parseWatchdogArgs } from './watchdog.js';

// The watchdog process (watchdog.ts), started by ServerProcess with the server's pid, start time, marker and grace:
// it waits for its stdin, the sweep's pipe, to end.
const watched = parseWatchdogArgs(process.argv.slice(2));
if (!watched) process.exit(2);
let fired = false;
const fire = () => {
  if (fired) return;
  fired = true;
  void onSweepGone(watched, procFs()).finally(() => process.exit(0));
};
process.stdin.on('end', fire).on('close', fire).on('error', fire).resume();
