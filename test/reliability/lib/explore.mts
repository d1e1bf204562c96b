import { startSim } from '../../../src/sim/index.js';
import { tempDir, tinyArgs } from './bench-run.js';
import { ENOSPC_PRELOAD, fullDiskRun, mountTmpfs } from './full-disk.js';
const sim = await startSim({ profile: 'tiny', port: 0 });
const n = Number(process.argv[2] ?? 30000);
const out = tempDir('disk');
const a = await fullDiskRun(sim.baseUrl, out, tinyArgs('1K,2K', '1,2'), {
  NODE_OPTIONS: `--import ${ENOSPC_PRELOAD}`,
  ENOSPC_DIR: out,
  ENOSPC_AFTER_BYTES: String(n),
});
console.log(a.problems, a.maxCellsSeen, a.run.result?.decode.length, a.run.stderr);
const tm = tempDir('tm');
const um = mountTmpfs(tm, Number(process.argv[3] ?? 65536));
if (um) {
  const b = await fullDiskRun(sim.baseUrl, tm, tinyArgs('1K,2K', '1,2'));
  console.log(b.problems, b.maxCellsSeen, b.run.result?.decode.length, b.run.stderr);
  um();
}
await sim.close();
