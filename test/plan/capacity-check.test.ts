import { describe, expect, it } from 'vitest';
import { capacityRuleHeld } from '../../src/plan/capacity.js';
import { buildPlan, raisedCapacity, type PlanInput } from '../../src/plan/plan.js';

// The llama.cpp unified-KV case of the capacity issue: the API shows 32,768 (one slot), the pool holds 65,536.
const input: PlanInput = {
  maxModelLen: 32768,
  kvCapacityTokens: 32768,
  maxOutput: 512,
  contexts: [4096, 8192],
  concurrency: [1, 2, 4, 8],
};
const statuses = (p: ReturnType<typeof buildPlan>) =>
  p.cells.map((c) => `${c.contextTokens}x${c.concurrency}:${c.status}${c.capacityCheck ? '?' : ''}`);

describe('capacity checks in the plan', () => {
  it('skips every Over capacity cell when the capacity is exact', () => {
    expect(statuses(buildPlan(input))).toEqual([
      '4096x1:run',
      '4096x2:run',
      '4096x4:run',
      '4096x8:Over capacity', // 8 × 4,608 = 36,864
      '8192x1:run',
      '8192x2:run',
      '8192x4:Over capacity', // 4 × 8,704 = 34,816: the cell the real server ran
      '8192x8:Over capacity',
    ]);
  });

  it('measures the first cell over a lower bound in each context, and skips the rest', () => {
    const plan = buildPlan({ ...input, kvCapacityBound: 'lower-bound' });
    expect(statuses(plan)).toEqual([
      '4096x1:run',
      '4096x2:run',
      '4096x4:run',
      '4096x8:run?',
      '8192x1:run',
      '8192x2:run',
      '8192x4:run?',
      '8192x8:Over capacity',
    ]);
    const check = plan.cells.find((c) => c.contextTokens === 8192 && c.concurrency === 4)!.capacityCheck!;
    expect(check).toEqual({ needTokens: 34816, kvCapacityTokens: 32768, bound: 'lower-bound', why: 'bound' });
    expect(plan.kvCapacityBound).toBe('lower-bound');
  });

  it('--verify-capacity measures the first Over capacity cell even when the capacity is exact', () => {
    const plan = buildPlan({ ...input, verifyCapacity: true });
    const checks = plan.cells.filter((c) => c.capacityCheck);
    expect(checks.map((c) => [c.contextTokens, c.concurrency, c.capacityCheck!.why])).toEqual([
      [4096, 8, 'verify'],
      [8192, 4, 'verify'],
    ]);
  });

  it('a check cell that ran whole raises the bound for the cells still to run', () => {
    const plan = buildPlan({ ...input, kvCapacityBound: 'lower-bound' });
    const raised = raisedCapacity(plan, 36864, { ...input, kvCapacityBound: 'lower-bound' });
    expect(raised.kvCapacityTokens).toBe(36864);
    // 8K x4 (34,816) now fits the proven 36,864; 8K x8 (69,632) is the next cell to check.
    expect(statuses(raised).slice(4)).toEqual(['8192x1:run', '8192x2:run', '8192x4:run', '8192x8:run?']);
    expect(raisedCapacity(plan, 30000, input)).toBe(plan);
  });

  it('the rule held unless the server ran all N at once', () => {
    expect(capacityRuleHeld('Valid')).toBe(false);
    expect(capacityRuleHeld('Requests queued')).toBe(true);
    expect(capacityRuleHeld('Failed')).toBe(true);
    expect(capacityRuleHeld('Valid', 3)).toBe(true); // the pool ran out mid-stream for some of them
  });
});
