import { describe, expect, it } from 'vitest';
import { BenchError } from '../../src/errors.js';
import { makeCurves } from '../../src/sim/curves.js';
import { listProfiles, loadProfile } from '../../src/sim/profiles.js';

const overCapacity = (kv: number, n: number, c: number, maxOut = 4096) => n * (c + maxOut) > kv;

describe('profiles', () => {
  it('every shipped profile validates', () => {
    const names = listProfiles();
    expect(names).toEqual(
      expect.arrayContaining(['tiny', 'demo', 'rtx-pro-6000x8-glm-5.3-flash', 'h200x4-glm-5.3-flash-dflash']),
    );
    for (const n of names) expect(loadProfile(n).name).toBe(n);
  });

  it("seed profiles reproduce the seeds' Over capacity boundaries", () => {
    const rtx = loadProfile('rtx-pro-6000x8-glm-5.3-flash').kvCapacityTokens;
    expect(overCapacity(rtx, 128, 16384)).toBe(false); // Valid in the seed
    expect(overCapacity(rtx, 128, 32768)).toBe(true);
    expect(overCapacity(rtx, 4, 1043456)).toBe(true);
    expect(overCapacity(rtx, 2, 1043456)).toBe(false);
    const h200 = loadProfile('h200x4-glm-5.3-flash-dflash').kvCapacityTokens;
    expect(overCapacity(h200, 64, 32768)).toBe(false); // Requests queued in the seed (it ran)
    expect(overCapacity(h200, 128, 16384)).toBe(true);
  });

  it('tiny matches the test contract', () => {
    const p = loadProfile('tiny');
    expect(p).toMatchObject({ maxModelLen: 32768, kvCapacityTokens: 300000, maxNumSeqs: 16 });
    const c = makeCurves(p);
    expect(c.decodeStepMs(1, 1000)).toBe(2);
    expect(Math.round(1000 / c.prefillMsPerToken(8192))).toBe(2_000_000);
  });

  it('demo shows every status in a 1K..8K x 1..16 matrix with max output 512', () => {
    const p = loadProfile('demo');
    expect(p.maxNumSeqs).toBeLessThan(16);
    expect(overCapacity(p.kvCapacityTokens, 16, 1024, 512)).toBe(false); // runs, queued
    expect(overCapacity(p.kvCapacityTokens, 8, 8192, 512)).toBe(true);
    expect(overCapacity(p.kvCapacityTokens, 4, 8192, 512)).toBe(false);
  });

  it('overrides and timeScale apply; invalid profiles are CONFIG_INVALID with the field path', () => {
    const p = loadProfile('rtx-pro-6000x8-glm-5.3-flash', { timeScale: 10, maxNumSeqs: 4 });
    expect(p.maxNumSeqs).toBe(4);
    expect(makeCurves(p).decodeStepMs(1, 0)).toBeCloseTo(0.92, 6);
    try {
      loadProfile({
        name: 'x',
        servedModelName: 'm',
        maxModelLen: 10,
        kvCapacityTokens: 5,
        maxNumSeqs: 0,
      } as never);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(BenchError);
      expect((e as BenchError).code).toBe('CONFIG_INVALID');
      expect((e as BenchError).message).toContain('maxNumSeqs');
    }
  });

  it('a path that cannot be read says so, not "unknown sim profile" (a twin file mistyped)', () => {
    const cases: Array<[string, RegExp]> = [
      [
        '/tmp/nope-lib-bench.yaml',
        /^cannot read the profile \/tmp\/nope-lib-bench\.yaml: no such file or folder\.$/,
      ],
      ['nope-lib-bench.yml', /^cannot read the profile nope-lib-bench\.yml: no such file or folder\.$/],
      ['dir/nope', /^cannot read the profile dir\/nope: no such file or folder\.$/],
      ['/tmp', /^cannot read the profile \/tmp: it is a folder, not a file\.$/],
      ['no-such-profile', /^unknown sim profile "no-such-profile"$/],
    ];
    for (const [arg, message] of cases) {
      let err: unknown;
      try {
        loadProfile(arg);
      } catch (e) {
        err = e;
      }
      expect(err, arg).toBeInstanceOf(BenchError);
      expect((err as BenchError).code).toBe('CONFIG_INVALID');
      expect((err as BenchError).message, arg).toMatch(message);
    }
  });
});
