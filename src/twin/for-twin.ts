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
  concurrency: number[]; // the levels to run, and the one over capacity the run records without running it
}

export function twinRuns(plan: Plan): { runs: TwinRun[]; prefillContexts: number[] } {
  const cell = new Map(plan.cells.map((c) => [`${c.contextTokens}x${c.concurrency}`, c]));
  const known = plan.kvCapacityTokens !== undefined;
  const contexts = plan.contexts.filter(
    (c) => cell.get(`${c}x${plan.concurrency[0]}`)?.status !== 'Too long',
  );
  const choice = chooseTwinCells(contexts, plan.concurrency, contexts, (c, n) => {
    if (!known) return undefined;
    const x = cell.get(`${c}x${n}`);
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

export function forTwinText(
  plan: Plan,
  opts: { duration: number; prefillRepeats: number; baseUrl?: string },
): string {
  const { runs } = twinRuns(plan);
  const kv = plan.kvCapacityTokens;
  let total = 0;
  let measured = 0;
  const lines = [''];
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
    measured += sub.cells.filter((c) => c.status === 'run').length;
    const ctx = contextLabel(r.contextTokens);
    const run = cliCommand(
      'run',
      ...(opts.baseUrl ? ['--base-url', opts.baseUrl] : []),
      ...['--contexts', ctx, '--prefill-contexts', ctx, '--concurrency', r.concurrency.join(',')],
      ...['--max-output', String(plan.maxOutput), '--duration', String(opts.duration)],
      ...(kv !== undefined ? ['--kv-capacity', String(kv)] : []),
      ...['--out', `twin-run-${i + 1}`],
    );
    lines.push(`  ${run}   # ~${fmtEta(est.totalS)}`);
  });
  const over = runs.reduce((s, r) => s + r.concurrency.length, 0) - measured;
  lines[0] =
    `for a twin (docs/twin.md): ${measured} cells in ${runs.length} short runs` +
    (over ? ` (and ${over} over capacity, recorded not run)` : '') +
    ', then fit:';
  lines.splice(1, 0, '');
  lines.push(
    `  ${cliCommand('fit', ...runs.map((_, i) => `twin-run-${i + 1}`), '-o', 'twin.yaml')}`,
    `  ${cliCommand('predict', '--twin', 'twin.yaml')}`,
    '',
    `estimated ${fmtEta(total)} of server time (most of it the cold prefill of long prompts); ` +
      `--duration 10 shortens the windows.` +
      (kv === undefined
        ? ' The KV capacity is unknown, so the middle and largest contexts take their lowest two levels: give ' +
          '--kv-capacity (or --base-url to probe it) for the largest level that fits and the next one over; ' +
          "otherwise fit needs the capacity from the runs (the server's report) or --kv-capacity."
        : ''),
  );
  return lines.join('\n') + '\n';
}
