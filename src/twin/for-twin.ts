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

export function forTwinText(
  plan: Plan,
  opts: { duration: number; prefillRepeats: number; baseUrl?: string },
): string {
  const { runs } = twinRuns(plan);
  let total = 0;
  const lines = [
    `for a twin (docs/twin.md): ${runs.reduce((s, r) => s + r.concurrency.length, 0)} cells in ${runs.length} short runs, then fit:`,
    '',
  ];
  runs.forEach((r, i) => {
    const sub = buildPlan({
      ...(plan.maxModelLen !== undefined ? { maxModelLen: plan.maxModelLen } : {}),
      ...(plan.kvCapacityTokens !== undefined ? { kvCapacityTokens: plan.kvCapacityTokens } : {}),
      maxOutput: plan.maxOutput,
      contexts: [r.contextTokens],
      prefillContexts: [r.contextTokens],
      concurrency: r.concurrency,
    });
    const est = estimateDuration(sub, { duration: opts.duration, prefillRepeats: opts.prefillRepeats });
    total += est.totalS;
    const ctx = contextLabel(r.contextTokens);
    const run = cliCommand(
      'run',
      ...(opts.baseUrl ? ['--base-url', opts.baseUrl] : []),
      ...['--contexts', ctx, '--prefill-contexts', ctx, '--concurrency', r.concurrency.join(',')],
      ...['--max-output', String(plan.maxOutput), '--duration', String(opts.duration)],
      ...['--out', `twin-run-${i + 1}`],
    );
    lines.push(`  ${run}   # ~${fmtEta(est.totalS)}`);
  });
  lines.push(
    `  ${cliCommand('fit', ...runs.map((_, i) => `twin-run-${i + 1}`), '-o', 'twin.yaml')}`,
    `  ${cliCommand('predict', '--twin', 'twin.yaml')}`,
    '',
    `estimated ${fmtEta(total)} of server time (most of it the cold prefill of long prompts); ` +
      `--duration 10 shortens the windows.` +
      (plan.kvCapacityTokens === undefined
        ? ' The KV capacity is unknown: give --kv-capacity (or --base-url to probe it), or fit will ask for it.'
        : ''),
  );
  return lines.join('\n') + '\n';
}
