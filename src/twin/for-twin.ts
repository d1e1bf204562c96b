import { buildPlan, type Plan } from '../plan/plan.js';
import { contextLabel } from '../format/index.js';
import { estimateDuration } from '../plan/estimate.js';
import { fmtEta } from '../format/index.js';
import { cliCommand } from '../invocation.js';
import { chooseTwinCells } from './choose.js';

// `plan --for-twin`: the short runs that pin a twin (one run per context, since a run measures a grid), the
// `fit` that joins them, and what they cost. The runner needs nothing new: fit reads several results.

export interface TwinRun {
  contextTokens: number;
  concurrency: number[];
}

export function twinRuns(plan: Plan): { runs: TwinRun[]; prefillContexts: number[] } {
  const cell = new Map(plan.cells.map((c) => [`${c.contextTokens}x${c.concurrency}`, c.status]));
  const choice = chooseTwinCells(
    plan.contexts,
    plan.concurrency,
    plan.contexts,
    (c, n) => cell.get(`${c}x${n}`) === 'run',
    false, // a short run asks the server for its capacity (fit --kv-capacity where it cannot tell)
  );
  const runs: TwinRun[] = [];
  for (const c of choice.cells) {
    if (!c.fits) continue; // the plan knows it is over capacity: nothing to learn by asking the server
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
  baseUrlGiven: boolean; // without it the run commands read the server's URL from $BASE_URL
  kvCapacityTokens?: number;
}

interface TwinOpts {
  duration: number;
  prefillRepeats: number;
  baseUrl?: string;
}

// The commands, as they run where the user is (src/invocation.ts): each run writes twin-run-N/<runId>/, and fit
// reads a folder that holds one run.
export function twinRecipe(plan: Plan, opts: TwinOpts): TwinRecipe {
  const { runs } = twinRuns(plan);
  const out = runs.map((r, i) => {
    const sub = buildPlan({
      ...(plan.maxModelLen !== undefined ? { maxModelLen: plan.maxModelLen } : {}),
      ...(plan.kvCapacityTokens !== undefined ? { kvCapacityTokens: plan.kvCapacityTokens } : {}),
      maxOutput: plan.maxOutput,
      contexts: [r.contextTokens],
      prefillContexts: [r.contextTokens],
      concurrency: r.concurrency,
    });
    const est = estimateDuration(sub, { duration: opts.duration, prefillRepeats: opts.prefillRepeats });
    const ctx = contextLabel(r.contextTokens);
    const command = cliCommand(
      'run',
      ...(opts.baseUrl ? ['--base-url', opts.baseUrl] : []),
      ...['--contexts', ctx, '--prefill-contexts', ctx, '--concurrency', r.concurrency.join(',')],
      ...['--max-output', String(plan.maxOutput), '--duration', String(opts.duration)],
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
    baseUrlGiven: opts.baseUrl !== undefined,
    ...(plan.kvCapacityTokens !== undefined ? { kvCapacityTokens: plan.kvCapacityTokens } : {}),
  };
}

export function forTwinText(plan: Plan, opts: TwinOpts): string {
  const r = twinRecipe(plan, opts);
  const lines = [
    `for a twin (docs/twin.md): ${r.runs.reduce((s, x) => s + x.concurrency.length, 0)} cells in ${r.runs.length} short runs, then fit:`,
    '',
    ...(r.baseUrlGiven
      ? []
      : ['  BASE_URL=http://HOST:PORT/v1   # your server; or plan with --base-url to fill it in']),
    ...r.runs.map((x) => `  ${x.command}   # ~${fmtEta(x.estimateS)}`),
    `  ${r.fit}`,
    `  ${r.predict}`,
    '',
    `estimated ${fmtEta(r.estimateS)} of server time (most of it the cold prefill of long prompts); ` +
      `--duration 10 shortens the windows.` +
      (r.kvCapacityTokens === undefined
        ? ' The KV capacity is unknown: give --kv-capacity (or --base-url to probe it), or fit will ask for it.'
        : ''),
  ];
  return lines.join('\n') + '\n';
}
