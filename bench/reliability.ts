// bench:reliability — the exhaustive reliability run behind docs/reliability.md: every sim fault at four rates
// (two cells per run), 20 SIGKILL points with resume, every bad input, the secrets sweep and a full disk.
// Prints the figures table; writes bench/out/reliability-<time>.json.
// Usage: npm run bench:reliability [-- --kills=20] [-- --seed=20261202] [-- --parallel=3] [-- --quick]
//        [-- --only=faults,kills,bad,secrets,disk]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSim } from '../src/sim/index.js';
import { FAULT_NAMES } from '../src/sim/faults.js';
import { describeRun, tempDir, tinyArgs } from '../test/reliability/lib/bench-run.js';
import { BAD_INPUTS, startFakes, tryBadInput } from '../test/reliability/lib/bad-inputs.js';
import {
  CRASH_ARGS,
  compareWithBaseline,
  killResumeChains,
  mulberry32,
  runKillable,
  startPoller,
} from '../test/reliability/lib/crash.js';
import { mapLimit, runFaultCase, type FaultCase } from '../test/reliability/lib/fault-check.js';
import { ENOSPC_PRELOAD, fullDiskRun, mountTmpfs } from '../test/reliability/lib/full-disk.js';
import { secretsSweep } from '../test/reliability/lib/secrets.js';
import { benchArgs } from './lib/args.js';

const PARTS = ['faults', 'kills', 'bad', 'secrets', 'disk'];
const ARGS = benchArgs(
  {
    name: 'bench:reliability',
    about: 'Every sim fault, SIGKILL points with resume, bad input, secrets, a full disk.',
  },
  {
    quick: { type: 'flag', help: 'two fault rates, 5 kills (a smoke check, not figures)' },
    kills: { type: 'number', help: 'SIGKILL points; default 20, --quick 5' },
    seed: { type: 'number', default: 20261202, help: 'seed of the kill points' },
    parallel: { type: 'number', default: 3, help: 'fault cases at once' },
    only: { type: 'strings', default: PARTS, help: 'the parts to run' },
  },
);
const QUICK = ARGS.quick;
const KILLS = ARGS.kills ?? (QUICK ? 5 : 20);
const SEED = ARGS.seed;
const PARALLEL = ARGS.parallel;
const RATES = QUICK ? [0.1, 1] : [0.02, 0.1, 0.5, 1];
const log = (s: string) => process.stderr.write(`${s}\n`);
const ONLY = new Set(ARGS.only);

async function faults() {
  const cases: FaultCase[] = FAULT_NAMES.flatMap((fault) =>
    RATES.map((rate) => ({
      fault,
      rate,
      ...(fault === 'stall' || fault === 'slow-headers' ? { params: 'ms=800' } : {}),
    })),
  );
  // A stall past the client's 60 s idle timeout must turn into timeout_idle, not a hang (one case: it is slow).
  if (!QUICK) cases.push({ fault: 'stall', rate: 0.5, params: 'ms=65000' });
  return mapLimit(cases, PARALLEL, async (c) => {
    const r = await runFaultCase(c, {
      seed: SEED,
      extraArgs: c.params === 'ms=65000' ? ['--concurrency', '2', '--duration', '62'] : [],
    });
    log(`fault ${r.spec}: ${r.outcome}${r.code ? ` ${r.code}` : ''} (${r.injected} injected, ${r.ms} ms)`);
    for (const p of r.problems) log(`  ! ${p}`);
    return r;
  });
}

async function kills() {
  const sim = await startSim({ profile: 'tiny', port: 0, seed: 3 });
  try {
    const ref = tempDir('rel-ref');
    const t0 = Date.now();
    const a = await runKillable(
      ['run', '--base-url', sim.baseUrl, '--out', ref, '--run-id', 'ref', '--quiet', ...CRASH_ARGS],
      undefined,
    );
    const spanMs = Date.now() - t0;
    const baseline = describeRun(
      { code: a.exit, signal: a.signal, stdout: '', stderr: a.stderr },
      join(ref, 'ref'),
    ).result;
    if (!baseline) throw new Error(`reference run failed: ${a.stderr}`);
    const out = tempDir('rel-kill');
    const polls = Array.from({ length: KILLS + 2 }, (_, i) => startPoller(join(out, `chain${i + 1}`)));
    const chains = await killResumeChains({
      baseUrl: sim.baseUrl,
      out,
      kills: KILLS,
      spanMs: spanMs * 0.8,
      rng: mulberry32(SEED),
      onAttempt: (x, id) =>
        log(`kill ${id}: ${x.killedAtMs !== undefined ? `killed at ${x.killedAtMs} ms` : `ended ${x.exit}`}`),
    });
    const stats = polls.map((p) => p.stop());
    const perChain = chains.map((c) => compareWithBaseline(c.final, baseline).map((p) => `${c.runId}: ${p}`));
    const problems = perChain.flat();
    const survived = chains.reduce((n, c, i) => n + (perChain[i]!.length === 0 ? c.kills : 0), 0);
    problems.push(...stats.flatMap((s) => s.invalid));
    for (const p of problems) log(`  ! ${p}`);
    const lost = chains.reduce((n, c) => {
      const got = new Set((c.final.result?.decode ?? []).map((d) => `${d.contextTokens}x${d.concurrency}`));
      return n + baseline.decode.filter((d) => !got.has(`${d.contextTokens}x${d.concurrency}`)).length;
    }, 0);
    return {
      kills: chains.reduce((n, c) => n + c.kills, 0),
      survived,
      chains: chains.length,
      attempts: chains.reduce((n, c) => n + c.attempts.length, 0),
      reads: stats.reduce((n, s) => n + s.reads, 0),
      invalidReads: stats.reduce((n, s) => n + s.invalid.length, 0),
      cellsLost: lost,
      problems,
    };
  } finally {
    await sim.close();
  }
}

async function badInputs() {
  const f = await startFakes();
  try {
    const r = await mapLimit(BAD_INPUTS, PARALLEL, (b) => tryBadInput(b, f));
    for (const x of r)
      log(`bad input ${x.ok ? 'ok' : 'FAILED'}: ${x.name}${x.ok ? '' : ` — ${x.problems.join('; ')}`}`);
    return r;
  } finally {
    await f.close();
  }
}

async function fullDisk() {
  const sim = await startSim({ profile: 'tiny', port: 0 });
  try {
    const out = tempDir('rel-enospc');
    const seam = await fullDiskRun(sim.baseUrl, out, tinyArgs('1K,2K', '1,2'), {
      NODE_OPTIONS: `--import ${ENOSPC_PRELOAD}`,
      ENOSPC_DIR: out,
      ENOSPC_AFTER_BYTES: '15000',
    });
    const tm = tempDir('rel-tmpfs');
    const unmount = mountTmpfs(tm, 20_000);
    let tmpfs: string[] | undefined;
    if (unmount)
      try {
        tmpfs = (await fullDiskRun(sim.baseUrl, tm, tinyArgs('1K,2K', '1,2'))).problems;
      } finally {
        unmount();
      }
    return { seam: seam.problems, tmpfs };
  } finally {
    await sim.close();
  }
}

const t0 = Date.now();
const faultResults = ONLY.has('faults') ? await faults() : [];
const killResult = ONLY.has('kills')
  ? await kills()
  : {
      kills: 0,
      survived: 0,
      chains: 0,
      attempts: 0,
      reads: 0,
      invalidReads: 0,
      cellsLost: 0,
      problems: [] as string[],
    };
const bad = ONLY.has('bad') ? await badInputs() : [];
const secrets = ONLY.has('secrets')
  ? await secretsSweep()
  : { leaks: [], surfaces: [], accepted: { flag: null, env: null, file: null } };
const disk = ONLY.has('disk') ? await fullDisk() : { seam: [] as string[], tmpfs: undefined };

const survived = faultResults.filter((r) => r.outcome !== 'broken');
const fired = faultResults.filter((r) => r.injected > 0);
const rows: Array<[string, string]> = [
  ['fault runs (12 faults x rates, real CLI vs sim)', `${faultResults.length}`],
  [
    '  survived: continued, failures accounted',
    `${survived.filter((r) => r.outcome === 'continued').length}`,
  ],
  [
    '  survived: stopped with one line + stable code',
    `${survived.filter((r) => r.outcome === 'stopped').length}`,
  ],
  ['  broken (an invariant failed)', `${faultResults.length - survived.length}`],
  ['  runs where the fault fired', `${fired.length}`],
  ['  faulted requests injected', `${faultResults.reduce((n, r) => n + r.injected, 0)}`],
  ['  cells lost', `${faultResults.reduce((n, r) => n + r.cellsLost, 0)}`],
  ['SIGKILL points survived (resumed)', `${killResult.survived} / ${killResult.kills}`],
  ['  runs / CLI processes', `${killResult.chains} / ${killResult.attempts}`],
  ['  result.json reads during runs, invalid', `${killResult.reads}, ${killResult.invalidReads}`],
  [
    '  cells lost or duplicated',
    `${killResult.cellsLost + killResult.problems.filter((p) => /duplicat/.test(p)).length}`,
  ],
  ['bad inputs refused with one clear line', `${bad.filter((b) => b.ok).length} / ${bad.length}`],
  ['secret leaks (surfaces searched)', `${secrets.leaks.length} (${secrets.surfaces.length})`],
  [
    'key accepted from flag / env / file',
    `${Object.values(secrets.accepted).every((c) => c === 0) ? 'yes' : JSON.stringify(secrets.accepted)}`,
  ],
  ['full disk, ENOSPC seam: problems', `${disk.seam.length}`],
  ['full disk, 20 KB tmpfs: problems', disk.tmpfs ? `${disk.tmpfs.length}` : 'not mountable here'],
];
const w = Math.max(...rows.map((r) => r[0].length));
process.stdout.write(
  `\nllm-inference-bench reliability (seed ${SEED}, ${Math.round((Date.now() - t0) / 1000)} s)\n`,
);
for (const [k, v] of rows) process.stdout.write(`${k.padEnd(w)}  ${v}\n`);
process.stdout.write('\nfault            outcome     code                 injected  cells\n');
for (const r of faultResults)
  process.stdout.write(
    `${r.spec.padEnd(26)} ${r.outcome.padEnd(10)} ${(r.code ?? '-').padEnd(20)} ${String(r.injected).padStart(4)}  ${r.cells.join('; ')}\n`,
  );
mkdirSync('bench/out', { recursive: true });
const file = `bench/out/reliability-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
writeFileSync(
  file,
  JSON.stringify(
    {
      seed: SEED,
      faultResults,
      killResult,
      bad,
      secrets: { leaks: secrets.leaks, surfaces: secrets.surfaces.length, accepted: secrets.accepted },
      disk,
    },
    null,
    2,
  ),
);
process.stdout.write(`\nwrote ${file}\n`);
const broken =
  faultResults.length -
  survived.length +
  killResult.problems.length +
  bad.filter((b) => !b.ok).length +
  secrets.leaks.length +
  disk.seam.length +
  (disk.tmpfs?.length ?? 0);
process.exitCode = broken > 0 ? 1 : 0;
