import { buildPlan, type Plan } from '../plan/plan.js';
import { contextLabel } from '../format/index.js';
import { estimateDuration } from '../plan/estimate.js';
import { fmtEta } from '../format/index.js';
import { cliCommand } from '../invocation.js';
import { chooseTwinCells } from './choose.js';
import { cellKey } from '../cell-rules.js';

// `plan --for-twin`: the short runs that pin a twin (one run per context, since a run measures a grid), the
// `fit` that joins them, and what they cost. The runner needs nothing new: fit reads several results.

export interface TwinRun {
  contextTokens: number;
  concurrency: number[]; // the levels to run, and the one over capacity the run records without running it
}

export function twinRuns(plan: Plan): { runs: TwinRun[]; prefillContexts: number[] } {
  const cell = new Map(plan.cells.map((c) => [cellKey(c.contextTokens, c.concurrency), c]));
  const known = plan.kvCapacityTokens !== undefined;
  const contexts = plan.contexts.filter(
    (c) => cell.get(cellKey(c, plan.concurrency[0]!))?.status !== 'Too long',
  );
  const choice = chooseTwinCells(contexts, plan.concurrency, contexts, (c, n) => {
    if (!known) return undefined;
    const x = cell.get(cellKey(c, n));
    return x?.status === 'run' && !x.capacityCheck;
  });
  const runs: TwinRun[] = [];
  for (const c of choice.cells) {
    const run = runs.find((r) => r.contextTokens === c.contextTokens);
    if (run) run.concurrency.push(c.concurrency);
    else runs.push({ contextTokens: c.contextTokens, concurrency: [c.concurrency] });
  }
  return { runs, prefillContexts: choice.prefillContexts };
}

export interface TwinRecipe {
  runs: (TwinRun & { command: string; estimateS: number })[];
  fit: string;
  predict: string;
  estimateS: number;
  fullEstimateS: number; // the whole matrix of the plan, measured as one run: what the short runs save
  cellsMeasured: number; // the run cells; at most the levels + 4 (docs/twin.md "A short run for fitting")
  cellsOverCapacity: number; // levels in the runs' --concurrency that are over capacity: recorded, not run
  baseUrlGiven: boolean; // without it the run commands read the server's URL from $BASE_URL
  kvCapacityTokens?: number;
  keyNote?: string; // the key was given in a way the printed commands do not carry (never the key itself)
}

interface TwinOpts {
  duration: number;
  prefillRepeats: number;
  baseUrl?: string; // without credentials (src/bench/settings.ts normalizeBaseUrl)
  // How plan got the key: a file the commands can name too; the flag (or the URL), which they must not carry.
  // From the environment, the pasted commands find it there as well.
  key?: { file: string } | 'not carried';
}

// The commands never carry a key given on the command line: each one reads it as the user chooses.
export const KEY_NOTE =
  'each run command needs the key: export OPENAI_API_KEY=... first, or add --api-key-file FILE to each.';

// The commands, as they run where the user is (src/invocation.ts): each run writes twin-run-N/<runId>/, and fit
// reads a folder that holds one run.
export function twinRecipe(plan: Plan, opts: TwinOpts): TwinRecipe {
  const { runs } = twinRuns(plan);
  const kv = plan.kvCapacityTokens;
  let measured = 0;
  const out = runs.map((r, i) => {
    const sub = buildPlan({
      ...(plan.maxModelLen !== undefined ? { maxModelLen: plan.maxModelLen } : {}),
      ...(kv !== undefined ? { kvCapacityTokens: kv } : {}),
      maxOutput: plan.maxOutput,
      contexts: [r.contextTokens],
      prefillContexts: [r.contextTokens],
      concurrency: r.concurrency,
    });
    const est = estimateDuration(sub, { duration: opts.duration, prefillRepeats: opts.prefillRepeats });
    measured += sub.cells.filter((c) => c.status === 'run').length;
    const ctx = contextLabel(r.contextTokens);
    const command = cliCommand(
      'run',
      ...(opts.baseUrl ? ['--base-url', opts.baseUrl] : []),
      ...['--contexts', ctx, '--prefill-contexts', ctx, '--concurrency', r.concurrency.join(',')],
      ...['--max-output', String(plan.maxOutput), '--duration', String(opts.duration)],
      ...(kv !== undefined ? ['--kv-capacity', String(kv)] : []),
      ...(typeof opts.key === 'object' ? ['--api-key-file', opts.key.file] : []),
      ...['--out', `twin-run-${i + 1}`],
    );
    // "$BASE_URL" stays a variable for the shell to fill (a quoted word would keep the dollar sign).
    return {
      ...r,
      command: opts.baseUrl ? command : command.replace(' run ', ' run --base-url "$BASE_URL" '),
      estimateS: est.totalS,
    };
  });
  return {
    runs: out,
    fit: cliCommand('fit', ...runs.map((_, i) => `twin-run-${i + 1}`), '-o', 'twin.yaml'),
    predict: cliCommand('predict', '--twin', 'twin.yaml'),
    estimateS: out.reduce((t, r) => t + r.estimateS, 0),
    fullEstimateS: estimateDuration(plan, { duration: opts.duration, prefillRepeats: opts.prefillRepeats })
      .totalS,
    cellsMeasured: measured,
    cellsOverCapacity: runs.reduce((n, x) => n + x.concurrency.length, 0) - measured,
    baseUrlGiven: opts.baseUrl !== undefined,
    ...(kv !== undefined ? { kvCapacityTokens: kv } : {}),
    ...(opts.key === 'not carried' ? { keyNote: KEY_NOTE } : {}),
  };
}

export function forTwinText(plan: Plan, opts: TwinOpts): string {
  const r = twinRecipe(plan, opts);
  const over = r.cellsOverCapacity;
  const full = plan.cells.filter((c) => c.status === 'run').length;
  const lines = [
    `for a twin (docs/twin.md): ${r.cellsMeasured} cells to measure in ${r.runs.length} short runs` +
      (over
        ? ` (their --concurrency also names ${over} level${over > 1 ? 's' : ''} over capacity, recorded without running)`
        : '') +
      ', then fit:',
    '',
    ...(r.baseUrlGiven
      ? []
      : ['  BASE_URL=http://HOST:PORT/v1   # your server; or plan with --base-url to fill it in']),
    ...(r.keyNote ? [`  # ${r.keyNote}`] : []),
    ...r.runs.map((x) => `  ${x.command}   # ~${fmtEta(x.estimateS)}`),
    `  ${r.fit}`,
    `  ${r.predict}`,
    '',
    `estimated ${fmtEta(r.estimateS)} of server time, ${Math.round((100 * r.estimateS) / r.fullEstimateS)}% of ` +
      `the ${fmtEta(r.fullEstimateS)} the whole matrix (${full} cells) takes (most of it the cold prefill of long ` +
      `prompts); --duration 10 shortens the windows.` +
      (r.estimateS * 2 >= r.fullEstimateS
        ? ` At this share, measuring the whole matrix (plan without --for-twin) costs ${fmtEta(r.fullEstimateS - r.estimateS)} more and predicts nothing.`
        : '') +
      (r.kvCapacityTokens === undefined
        ? ' The KV capacity is unknown, so the middle and largest contexts take their lowest two levels: give ' +
          '--kv-capacity (or --base-url to probe it) for the largest level that fits and the next one over; ' +
          "otherwise fit needs the capacity from the runs (the server's report) or --kv-capacity."
        : ''),
  ];
  return lines.join('\n') + '\n';
}
