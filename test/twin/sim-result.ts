import { DEFAULT_MAX_OUTPUT } from '../../src/cell-rules.js';
import { buildPlan } from '../../src/plan/plan.js';
import { emptyCell } from '../../src/results/empty-cell.js';
import { resultHeader } from '../../src/results/header.js';
import type { RunResult } from '../../src/results/schema.js';
import type { Profile } from '../../src/sim/profile-schema.js';
import { simulateCell, simulatePrefill } from '../../src/sim/what-if.js';
import { restartGapMs } from '../../src/twin/restart-loss.js';
import { decodeCellFrom, previousLevel } from '../../src/twin/sim-result.js';

// The result `run` would record against a sim profile, made in virtual time (the what-if engine): the ground
// truth a twin is judged on when the engine's parameters are known and hidden from the fit.

export interface SimGrid {
  contexts: number[];
  concurrency: number[];
  prefillContexts: number[];
  maxOutput?: number;
  windowS?: number;
  seed?: number;
  reportCapacity?: boolean; // what discovery would tell (vLLM reports its KV blocks); default true
  restartLossMsPerMTokens?: number; // a restart loss beyond TTFT (src/twin/restart-loss.ts); default 0
}

export function simulatedResult(profile: Profile, grid: SimGrid): RunResult {
  const maxOutput = grid.maxOutput ?? DEFAULT_MAX_OUTPUT;
  const windowS = grid.windowS ?? 30;
  const plan = buildPlan({
    maxModelLen: profile.maxModelLen,
    kvCapacityTokens: profile.kvCapacityTokens,
    maxOutput,
    contexts: grid.contexts,
    prefillContexts: grid.prefillContexts,
    concurrency: grid.concurrency,
  });
  return {
    ...resultHeader({
      runId: `sim-${profile.name}`,
      status: 'complete',
      startedAt: new Date(0).toISOString(),
    }),
    target: {
      baseUrl: 'sim',
      model: profile.servedModelName,
      api: 'chat',
      maxModelLen: profile.maxModelLen,
      ...(grid.reportCapacity === false ? {} : { kvCapacityTokens: profile.kvCapacityTokens }),
      metricsAvailable: true,
    },
    engine: { name: profile.flavor },
    hardware: { source: 'sim' },
    config: {
      contexts: plan.contexts,
      prefillContexts: plan.prefillContexts,
      concurrency: plan.concurrency,
      maxOutput,
      duration: windowS,
      prefillRepeats: 1,
      ignoreEos: true,
      sampling: {},
      seed: grid.seed ?? 7,
    },
    prefill: plan.prefill
      .filter((p) => p.status === 'run')
      .map((p) => {
        const r = simulatePrefill(profile, p.contextTokens);
        const rep = { promptTokens: p.contextTokens, ttftMs: r.ttftMs, tokensPerS: r.tokensPerS };
        return { contextTokens: p.contextTokens, status: 'Valid', ...rep, completed: 1, repeats: [rep] };
      }),
    decode: plan.cells
      .filter((c) => c.status !== 'Too long')
      .map((c) =>
        c.status === 'Over capacity'
          ? emptyCell(c.contextTokens, c.concurrency, 'Over capacity')
          : decodeCellFrom(
              c.contextTokens,
              c.concurrency,
              simulateCell(profile, {
                ...c,
                cachedSlots: previousLevel(plan.cells, c),
                maxOutput,
                windowS,
                seed: grid.seed ?? 7,
                resendGapMs: restartGapMs(grid.restartLossMsPerMTokens ?? 0, c.contextTokens),
              }),
              windowS,
            ),
      ),
    warnings: [],
  };
}
