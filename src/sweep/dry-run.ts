import { prefillRepeatsOf } from '../bench/settings.js';
import type { Options } from '../config/options.js';
import { isBenchError } from '../errors.js';
import { contextLabel, fmtEta } from '../format/index.js';
import { estimateDuration } from '../plan/estimate.js';
import { buildPlan } from '../plan/plan.js';
import { kvLayoutOf, limitsFromLaunch } from '../engines/index.js';
import { buildCommand } from './command.js';
import { linkedFor, runOptionsFor } from './configs.js';
import type { PreparedSweep } from './prepare.js';

// --dry-run: every server command and each run's plan with its time estimate, as `plan` makes them offline
// (from --contexts or --max-model-len, --kv-capacity and what --link-vars sets), and the total.

export interface DryRunRow {
  run: string;
  command: string;
  linked: string[];
  cells?: number;
  estimateS?: number;
  why?: string; // no estimate: what is missing
}

type RunOptions = Options<'run'>;

export function dryRunRows(p: PreparedSweep, apiKey: string | undefined): DryRunRow[] {
  const { serveSets, benchSets, links } = p.expanded;
  const o = p.options;
  return p.file.runs.map((run) => {
    const si = p.file.servers.findIndex((s) => s.key === run.server);
    const set = serveSets[si]!;
    const j = p.file.runs.filter((r) => r.server === run.server).indexOf(run);
    const bench = benchSets.length ? benchSets[j] : undefined;
    const linked = linkedFor(links, set, o, bench);
    const ro = runOptionsFor(o, bench, linked) as unknown as RunOptions;
    const row: DryRunRow = {
      run: run.name,
      command: buildCommand(o.serveCmd ?? p.file.serveCmd, set, '{port}', apiKey).shown,
      linked: linked.notes,
    };
    // The layout the configuration's command states (split llama.cpp slots queue what a pool would not run).
    const kvLayout = ro.engine
      ? kvLayoutOf(ro.engine, limitsFromLaunch(ro.engine, row.command)?.layout)
      : undefined;
    try {
      const plan = buildPlan({
        ...(ro.maxModelLen !== undefined ? { maxModelLen: ro.maxModelLen } : {}),
        ...(ro.kvCapacity !== undefined ? { kvCapacityTokens: ro.kvCapacity } : {}),
        ...(kvLayout ? { kvLayout } : {}),
        ...(ro.verifyCapacity ? { verifyCapacity: true } : {}),
        maxOutput: ro.maxOutput,
        ...(ro.contexts ? { contexts: ro.contexts } : {}),
        ...(ro.prefillContexts ? { prefillContexts: ro.prefillContexts } : {}),
        ...(ro.concurrency ? { concurrency: ro.concurrency } : {}),
      });
      const est = estimateDuration(plan, {
        duration: ro.duration,
        prefillRepeats: prefillRepeatsOf(ro),
        repeats: ro.repeats,
        ...(ro.engine ? { engine: ro.engine } : {}),
      });
      row.cells = est.cellsToRun;
      row.estimateS = est.totalS;
      row.linked = [
        ...row.linked,
        `plan: contexts ${plan.contexts.map(contextLabel).join(', ')} × concurrency ${plan.concurrency.join(',')}` +
          (plan.kvCapacityTokens !== undefined ? `, KV capacity ${plan.kvCapacityTokens}` : ''),
      ];
    } catch (e) {
      if (!isBenchError(e)) throw e;
      row.why =
        'contexts come from the server once it runs (give --contexts or --max-model-len for an estimate)';
    }
    return row;
  });
}

export function dryRunText(p: PreparedSweep, rows: readonly DryRunRow[]): string {
  const servers = p.file.servers.length;
  const lines = [
    `sweep ${p.file.sweepId}: ${servers} server configuration${servers === 1 ? '' : 's'}, ${rows.length} run${rows.length === 1 ? '' : 's'}; would write ${p.dir}`,
    '',
  ];
  rows.forEach((r, i) => {
    lines.push(`[${i + 1}/${rows.length}] ${r.run}`, `  ${r.command}`);
    for (const n of r.linked) lines.push(`  ${n}`);
    lines.push(
      r.estimateS !== undefined
        ? `  ${r.cells} cells to run; estimated ${fmtEta(r.estimateS)}`
        : `  no estimate: ${r.why}`,
      '',
    );
  });
  const known = rows.filter((r) => r.estimateS !== undefined);
  const total = known.reduce((s, r) => s + r.estimateS!, 0);
  const cells = known.reduce((s, r) => s + r.cells!, 0);
  lines.push(
    `total: ${cells} cells, estimated ${fmtEta(total)}` +
      (known.length < rows.length ? ` for the ${known.length} runs with an estimate` : '') +
      `, plus each server's start (at most --server-ready-timeout ${p.options.serverReadyTimeout} s) and stop`,
  );
  return lines.join('\n') + '\n';
}
