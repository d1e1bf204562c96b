import { describe, expect, it } from 'vitest';
import { FAULT_NAMES } from '../../src/sim/faults.js';
import { mapLimit, runFaultCase, STOP_CODES, type FaultCase, type FaultOutcome } from './lib/fault-check.js';

// Every named sim fault at a low and a high rate, through the real CLI: the run either continues and accounts
// for each failure in its cell, or stops with one line and a stable code; finished cells are always kept.
// One cell per run keeps CI fast; bench/reliability.ts runs the exhaustive version (more cells, more seeds).
const LOW = 0.1;
const HIGH = 1;
const params = (f: string) => (f === 'stall' || f === 'slow-headers' ? 'ms=800' : undefined);
const CASES: FaultCase[] = FAULT_NAMES.flatMap((fault) =>
  [LOW, HIGH].map((rate) => ({ fault, rate, ...(params(fault) ? { params: params(fault)! } : {}) })),
);

describe('fault matrix (real CLI against the sim)', () => {
  let results: FaultOutcome[] = [];

  it('runs every fault at a low and a high rate', { timeout: 480_000 }, async () => {
    results = await mapLimit(CASES, 3, (c) => runFaultCase(c, { extraArgs: ['--concurrency', '2'] }));
    expect(results).toHaveLength(FAULT_NAMES.length * 2);
  });

  it.each(CASES.map((c, i) => [`${c.fault}:${c.rate}`, i] as const))(
    '%s: survived or stopped cleanly, nothing lost',
    (_name, i) => {
      const r = results[i];
      expect(r, 'the matrix run did not finish').toBeDefined();
      expect(r!.problems).toEqual([]);
      expect(r!.injected, 'the fault never fired').toBeGreaterThan(0);
      expect(r!.cellsLost).toBe(0);
      const fault = CASES[i]!.fault;
      if (r!.outcome === 'stopped') expect(r!.code).toBe(STOP_CODES[fault]);
      // A high rate of a fatal fault must stop the run; any other fault must be survived.
      if (!(fault in STOP_CODES)) expect(r!.outcome).toBe('continued');
      else if (CASES[i]!.rate === HIGH) expect(r!.outcome).toBe('stopped');
    },
  );
});
