import { describe, expect, it } from 'vitest';
import { FAULT_NAMES } from '../../src/sim/faults.js';
import { runFaultCase, STOP_CODES, type FaultCase } from './lib/fault-check.js';

// Every named sim fault at a low and a high rate, through the CLI: the run either continues and accounts for
// each failure in its cell, or stops with one line and a stable code; finished cells are always kept. Each case
// runs its own sim and its own run, so one can fail, or run alone, without the others.
// One cell per run keeps CI fast; bench/reliability.ts runs the exhaustive version (more cells, more seeds).
const LOW = 0.1;
const HIGH = 1;
const params = (f: string) => (f === 'stall' || f === 'slow-headers' ? 'ms=800' : undefined);
const CASES: FaultCase[] = FAULT_NAMES.flatMap((fault) =>
  [LOW, HIGH].map((rate) => ({ fault, rate, ...(params(fault) ? { params: params(fault)! } : {}) })),
);

describe.concurrent('fault matrix (CLI against the sim)', () => {
  it.each(CASES.map((c) => [`${c.fault}:${c.rate}`, c] as const))(
    '%s: survived or stopped cleanly, nothing lost',
    async (_name, c) => {
      const r = await runFaultCase(c, { extraArgs: ['--concurrency', '2'] });
      expect(r.problems).toEqual([]);
      expect(r.injected, 'the fault never fired').toBeGreaterThan(0);
      expect(r.cellsLost).toBe(0);
      if (r.outcome === 'stopped') expect(r.code).toBe(STOP_CODES[c.fault]);
      // A high rate of a fatal fault must stop the run; any other fault must be survived.
      if (!(c.fault in STOP_CODES)) expect(r.outcome).toBe('continued');
      else if (c.rate === HIGH) expect(r.outcome).toBe('stopped');
    },
  );
});
