// Twin acceptance figures (docs/twin.md): fit on the cells `plan --for-twin` picks (`fit --twin-cells`), predict
// the whole matrix, judge the cells the fit did not see, against the targets. Seeds (imported v0.6.2 reports),
// two generated engines the repository does not ship (bench/lib/twin-cases.ts: the judges), and the shipped sim
// profiles. Virtual time: no server, no real clock. `npm run bench:twin [name filter]`.
import { readFileSync } from 'node:fs';
import { cellKey } from '../src/cell-rules.js';
import { importV062Text } from '../src/results/import-v062.js';
import type { RunResult } from '../src/results/schema.js';
import { loadProfile } from '../src/sim/profiles.js';
import { planOfResult, twinSubset } from '../src/twin/choose.js';
import { FIGURE_LABEL, FIGURES, judge, lean, TOLERANCE, type Figure } from '../test/twin/judge.js';
import { observe } from '../src/twin/observe.js';
import { predict } from '../src/twin/predict.js';
import { simulatedResult } from '../test/twin/sim-result.js';
import { RESTART_LOSS } from '../src/twin/restart-loss.js';
import { fitTwin } from '../src/twin/twin.js';
import { generatedCase, JUDGE_SEEDS, SEED_MATRIX } from './lib/twin-cases.js';
import { benchArgs } from './lib/args.js';
import { monotoneTtftBound } from './lib/twin-bound.js';

// The targets (docs/twin.md): seeds at least 90% on every figure; the generated judges 95% on tok/s and statuses, 90%
// on TTFT; on both, the over/under split of tok/s within 60/40.
type Kind = 'seed' | 'generated' | 'shipped';
const TARGET: Record<Kind, Record<Figure | 'status', number>> = {
  seed: { total: 0.9, perRequest: 0.9, ttft: 0.9, ttftP90: 0.9, status: 0.9 },
  generated: { total: 0.95, perRequest: 0.95, ttft: 0.9, ttftP90: 0.9, status: 0.95 },
  shipped: { total: 0.95, perRequest: 0.95, ttft: 0.9, ttftP90: 0.9, status: 0.95 },
};
const MAX_LEAN = 0.6;
// Fewer cells off by more than 2% than this say nothing about a lean (7 over and 1 under is chance 7% of the time).
const LEAN_MIN = 10;
const BIASED: ReadonlySet<Figure> = new Set(['total', 'perRequest']);

const pc = (a: number, b: number) => `${a}/${b} (${b ? Math.round((100 * a) / b) : 0}%)`;
let failed = 0;

function evaluate(name: string, kind: Kind, measured: RunResult, drawn?: string): void {
  const obs = twinSubset(observe([{ result: measured, source: name }]), measured);
  const twin = fitTwin(obs, planOfResult(measured));
  const keys = new Set(obs.decode.map((d) => cellKey(d.contextTokens, d.concurrency)));
  const predicted = predict(twin.profile, twin.meta);
  const j = judge(measured, predicted, keys);
  const target = TARGET[kind];
  const lines: string[] = [];
  let ok = true;
  for (const f of FIGURES) {
    const t = j.figures[f];
    if (t.judged === 0) continue;
    const share = t.within / t.judged;
    const l = lean(t);
    const pass = share >= target[f] && (!BIASED.has(f) || l <= MAX_LEAN || t.over + t.under < LEAN_MIN);
    ok &&= pass;
    lines.push(
      `  ${FIGURE_LABEL[f].padEnd(12)} within ${Math.round(100 * TOLERANCE[f])}%: ${pc(t.within, t.judged).padEnd(13)} target ${Math.round(100 * target[f])}%` +
        `  over/under ${t.over}/${t.under}${BIASED.has(f) ? ` (target ${Math.round(100 * MAX_LEAN)}/${Math.round(100 - 100 * MAX_LEAN)} from ${LEAN_MIN} off by 2%)` : ''}` +
        `  in interval ${t.inInterval}/${t.withInterval}  ${pass ? 'ok' : 'MISS'}`,
    );
  }
  const e = predicted.predicted?.expectedWithin;
  if (e)
    lines.push(
      `  expected by predict from its own misses: total ${Math.round(100 * e.totalTokensPerS)}%, per request ${Math.round(100 * e.perRequestTokensPerS)}%, TTFT ${Math.round(100 * e.ttftMs)}%`,
    );
  const statusPass = j.statusRight >= target.status * j.cells;
  ok &&= statusPass;
  lines.push(
    `  ${'status'.padEnd(12)}             ${pc(j.statusRight, j.cells).padEnd(13)} target ${Math.round(100 * target.status)}%  ${statusPass ? 'ok' : 'MISS'}`,
  );
  if (!ok) failed++;
  console.log(
    `${name}: fit on ${obs.decode.length} cells + ${obs.prefill.length} prefill; judged ${j.cells} cells, ${j.figures.total.judged} Valid: ${ok ? 'meets the targets' : 'MISSES a target'}`,
  );
  if (drawn) console.log(`  drawn: ${drawn}`);
  console.log(lines.join('\n'));
  const loss = twin.params.find((q) => q.name === RESTART_LOSS);
  if (loss) console.log(`  ${loss.name}: ${loss.value} (${loss.quality})`);
  if (kind === 'seed') {
    const b = monotoneTtftBound(measured, keys, TOLERANCE.ttft);
    console.log(
      `  TTFT bound: any prediction that never waits less for a longer prompt: at most ${pc(b.within, b.judged)}`,
    );
  }
  if (j.misses.length) console.log(`  misses: ${j.misses.join('; ')}`);
}

const only = benchArgs(
  {
    name: 'bench:twin',
    about: 'A twin fitted on the cells plan --for-twin picks, judged on the cells it did not see.',
    positionals: ['only'],
  },
  { only: { type: 'string', help: 'only the cases whose name contains this' } },
).only;
const wanted = (name: string) => !only || name.includes(only);
for (const seed of ['000_9816ff1652ee407d', '001_e957ef8128caa214']) {
  if (!wanted(`seed ${seed}`)) continue;
  const text = readFileSync(new URL(`../test/fixtures/seeds/${seed}.txt`, import.meta.url), 'utf8');
  evaluate(`seed ${seed}`, 'seed', importV062Text(text));
}
for (const [base, seed] of JUDGE_SEEDS) {
  const g = generatedCase(base, seed);
  if (!wanted(`generated ${g.profile.name}`)) continue;
  const measured = simulatedResult(g.profile, {
    ...SEED_MATRIX,
    restartLossMsPerMTokens: g.restartLossMsPerMTokens,
  });
  evaluate(`generated ${g.profile.name} (from ${base})`, 'generated', measured, g.drawn);
}
const shipped: Array<[string, Parameters<typeof loadProfile>[1], number?]> = [
  ['rtx-pro-6000x8-glm-5.3-flash', {}],
  ['h200x4-glm-5.3-flash-dflash', {}],
  ['rtx-pro-6000x8-glm-5.3-flash', { maxNumSeqs: 12, name: 'rtx-max-seqs-12' }],
  [
    'h200x4-glm-5.3-flash-dflash',
    { maxNumSeqs: 24, kvCapacityTokens: 1_800_000, name: 'h200-seqs-24-kv-1.8M' },
  ],
  // A restart loss the engine does not show (3 s at 1M tokens), as the H200 seed's client had.
  ['h200x4-glm-5.3-flash-dflash', { name: 'h200-restart-loss-3s-per-M' }, 3000],
];
for (const [base, overrides, loss] of shipped) {
  const p = loadProfile(base, overrides);
  if (!wanted(`sim ${p.name}`)) continue;
  evaluate(
    `sim ${p.name}`,
    'shipped',
    simulatedResult(p, { ...SEED_MATRIX, restartLossMsPerMTokens: loss ?? 0 }),
  );
}
console.log(failed ? `${failed} case(s) miss a target` : 'every case meets its targets');
