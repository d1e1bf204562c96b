import { flavorFacts } from '../engines/index.js';
import type { Profile } from './profile-schema.js';

// The command line a real server would have been started with to behave like this profile, in each engine's own
// flags (src/engines, each engine's `sim.launch`), so the target side's launch-command readers can be tested against
// the sim (GET /sim/launch). A profile's launchCommand, when set, is returned as written.
export function simLaunchCommand(p: Profile, host: string, port: number): string {
  if (p.launchCommand) return p.launchCommand;
  return flavorFacts(p.flavor)
    .sim!.launch(p, host, port)
    .filter((x) => x !== false)
    .join(' ');
}
