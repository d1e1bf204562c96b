import { describe, expect, it } from 'vitest';
import { mergeRepeatFigure } from '../../src/stats/repeats.js';
import { createRng } from '../../src/prompts/rng.js';

describe('mergeRepeatFigure', () => {
  it('is the mean with a t interval over the repeats', () => {
    const m = mergeRepeatFigure([100, 104, 96]);
    expect(m.figure).toBe(100);
    // sd 4, t(0.975, 2) = 4.30: half width 4.30 * 4 / sqrt 3 = 9.93 (Cornish-Fisher is within 1% at df 2-3)
    expect(m.interval!.hi - 100).toBeCloseTo(9.93, 0);
    expect(100 - m.interval!.lo).toBeCloseTo(m.interval!.hi - 100, 9);
  });

  it('is never narrower than the widest within-repeat interval', () => {
    const m = mergeRepeatFigure(
      [100, 100],
      [
        { lo: 95, hi: 105 },
        { lo: 98, hi: 102 },
      ],
    );
    expect(m.interval).toEqual({ lo: 95, hi: 105 });
  });

  it('drops repeats without a figure, and says nothing about one repeat without an interval', () => {
    expect(mergeRepeatFigure([null, 50, null]).figure).toBe(50);
    expect(mergeRepeatFigure([null, 50]).interval).toBeNull();
    expect(mergeRepeatFigure([null])).toEqual({ figure: null, interval: null });
    expect(mergeRepeatFigure([50], [{ lo: 45, hi: 55 }]).interval).toEqual({ lo: 45, hi: 55 });
  });

  it('covers the true mean in about 95% of seeds (5 repeats, normal noise)', () => {
    let covered = 0;
    const seeds = 2000;
    for (let seed = 1; seed <= seeds; seed++) {
      const rnd = createRng(seed);
      const normal = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
      const xs = Array.from({ length: 5 }, () => 1000 + 30 * normal());
      const { interval } = mergeRepeatFigure(xs);
      if (interval!.lo <= 1000 && 1000 <= interval!.hi) covered++;
    }
    expect(covered / seeds).toBeGreaterThan(0.93);
    expect(covered / seeds).toBeLessThan(0.97);
  });
});
