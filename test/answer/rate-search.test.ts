import { describe, expect, it } from 'vitest';
import { rateSearchRecord, searchStart, searchState, type RateStep } from '../../src/answer/rate-search.js';
import { RateSearch, type RateVerdict } from '../../src/results/schema.js';
import { makeRng } from '../../src/sim/rng.js';

// The rate search (docs/workloads.md "The answer in requests per second") driven by synthetic verdicts: each
// "window" is the verdict function at the rate the search asks for.
function run(verdict: (rate: number) => RateVerdict, start = 1, searchWindows?: number) {
  const steps: RateStep[] = [];
  for (let i = 0; i < 50; i++) {
    const s = searchState(steps, { start, searchWindows });
    if (s.done) return { steps, state: s };
    steps.push({ rate: s.next!, verdict: verdict(s.next!) });
  }
  throw new Error('the search did not end');
}
const threshold =
  (t: number) =>
  (r: number): RateVerdict =>
    r <= t ? 'meets' : 'fails';

describe('the rate search', () => {
  it('finds a threshold at 3.7 req/s within 10% in 6 windows: double, then bisect geometrically', () => {
    const { steps, state } = run(threshold(3.7));
    // 1, 2 meet; 4 fails; then sqrt(2 × 4) = 2.83, sqrt(2.83 × 4) = 3.36, sqrt(3.36 × 4) = 3.67; 4 / 3.67 = 1.09.
    expect(steps.map((s) => s.rate)).toEqual([1, 2, 4, 2.83, 3.36, 3.67]);
    expect(state).toMatchObject({ done: true, highestMeeting: 3.67, lowestFailing: 4 });
    expect(state.reason).toBe('3.67 req/s and 4 req/s are within 10%');
  });

  it('finds any threshold from 1/16 to 16 times the start within 10% in at most 8 windows', () => {
    const rng = makeRng(3);
    for (let i = 0; i < 300; i++) {
      const t = Math.exp(Math.log(0.07) + rng() * Math.log(15 / 0.07));
      const { steps, state } = run(threshold(t));
      expect(steps.length, `threshold ${t}`).toBeLessThanOrEqual(8);
      const lo = state.highestMeeting!;
      const hi = state.lowestFailing!;
      expect(lo <= t && t < hi, `threshold ${t}: ${lo}..${hi}`).toBe(true);
      expect(hi / lo).toBeLessThanOrEqual(1.1);
      expect(t / lo).toBeLessThan(1.1);
    }
  });

  it('halves from the start when the threshold is below it', () => {
    const { steps, state } = run(threshold(0.3));
    // 1 and 0.5 fail, 0.25 meets; sqrt(0.25 × 0.5) = 0.354 fails, sqrt(0.25 × 0.354) = 0.297 meets,
    // sqrt(0.297 × 0.354) = 0.324 fails: 0.324 / 0.297 = 1.09.
    expect(steps.map((s) => s.rate)).toEqual([1, 0.5, 0.25, 0.354, 0.297, 0.324]);
    expect(state).toMatchObject({ done: true, highestMeeting: 0.297, lowestFailing: 0.324 });
  });

  it('stops at --search-windows while every rate still meets it: at least the highest', () => {
    const { steps, state } = run(threshold(300));
    expect(steps.map((s) => s.rate)).toEqual([1, 2, 4, 8, 16, 32, 64, 128]);
    expect(state).toMatchObject({ done: true, highestMeeting: 128, lowestFailing: null });
    expect(state.reason).toBe('every rate of 8 windows met it (--search-windows 8)');
    // Given the windows, it goes on to within 10% of the threshold.
    const long = run(threshold(300), 1, 20);
    expect(long.state.highestMeeting! * 1.1).toBeGreaterThan(300);
    expect(long.state.lowestFailing! / long.state.highestMeeting!).toBeLessThanOrEqual(1.1);
  });

  it('counts too close to call as not meeting, and says so', () => {
    // Meets below 3, too close to call from 3 to 4, fails above.
    const band = (r: number): RateVerdict => (r < 3 ? 'meets' : r < 4 ? 'too close to call' : 'fails');
    const { steps, state } = run(band);
    // 1, 2 meet; 4 fails; 2.83 meets; 3.36 too close; sqrt(2.83 × 3.36) = 3.08 too close: 3.08 / 2.83 = 1.088.
    expect(steps.map((s) => `${s.rate} ${s.verdict}`)).toEqual([
      '1 meets',
      '2 meets',
      '4 fails',
      '2.83 meets',
      '3.36 too close to call',
      '3.08 too close to call',
    ]);
    expect(state).toMatchObject({ highestMeeting: 2.83, lowestFailing: 3.08, tooClose: [3.36, 3.08] });
    expect(state.reason).toBe(
      '2.83 req/s and 3.08 req/s are within 10% (3.08 req/s too close to call, counted as not meeting it)',
    );
  });

  it('stops at a rate the client cannot offer, with the reason', () => {
    const { steps, state } = run((r) => (r >= 8 ? 'client-bound' : 'meets'));
    expect(steps.map((s) => s.rate)).toEqual([1, 2, 4, 8]);
    expect(state).toMatchObject({ done: true, clientBound: 8, highestMeeting: 4, lowestFailing: null });
    expect(state.reason).toMatch(/could not send 8 req\/s on schedule \(Client-bound\)/);
  });

  it('stops short of 10% after --search-windows with the bracket it has', () => {
    const { steps, state } = run(threshold(3.7), 1, 4);
    expect(steps).toHaveLength(4);
    expect(state.reason).toBe(
      'stopped after 4 windows, 2.83 req/s to 4 req/s apart by more than 10% (--search-windows 4)',
    );
  });

  it('starts from --rates, else the closed loop capacity as a rate, else 1 req/s', () => {
    expect(searchStart({ given: 2.5, closedLoop: { users: 16, meanE2eMs: 5000 } })).toEqual({
      rate: 2.5,
      from: 'given',
    });
    // 16 users each busy 5 s per request: 3.2 requests a second keep 16 busy.
    expect(searchStart({ closedLoop: { users: 16, meanE2eMs: 5000 } })).toEqual({
      rate: 3.2,
      from: 'closed loop',
    });
    expect(searchStart({ closedLoop: { users: 3, meanE2eMs: 7000 } }).rate).toBe(0.429);
    expect(searchStart({})).toEqual({ rate: 1, from: 'default' });
  });

  it('is stored as the schema says, and a resumed search asks for the same next rate', () => {
    const { steps } = run(threshold(3.7));
    const slo = { ttftMs: 2000, share: 0.9 };
    const start = searchStart({});
    const partial = rateSearchRecord({ row: '8192', slo, start, steps: steps.slice(0, 3) });
    expect(RateSearch.parse(partial)).toEqual(partial);
    expect(partial).toMatchObject({ done: false, highestMeeting: 2, lowestFailing: 4, startFrom: 'default' });
    // What a resumed run reads back gives the same next step as the search that was cut off.
    const back = RateSearch.parse(JSON.parse(JSON.stringify(partial)));
    expect(searchState(back.steps, { start: back.start }).next).toBe(2.83);
    const whole = rateSearchRecord({ row: '8192', slo, start, steps });
    expect(whole).toMatchObject({ done: true, highestMeeting: 3.67, lowestFailing: 4 });
  });
});
