// The status matrix both status tests expect (test/bench/statuses-virtual.test.ts in virtual time,
// test/integration/statuses.test.ts over sockets): maxNumSeqs 2 < N = 4 -> Requests queued;
// 8K x 4: 4 x (8192 + 1024) = 36,864 > 30,000 -> Over capacity.
export const STATUS_SIM_OVERRIDES = { maxNumSeqs: 2, kvCapacityTokens: 30_000, maxModelLen: 16_384 };

export const EXPECTED_STATUSES = {
  '2048x1': 'Valid',
  '2048x2': 'Valid',
  '2048x4': 'Requests queued',
  '8192x1': 'Valid',
  '8192x2': 'Valid',
  '8192x4': 'Over capacity',
};
