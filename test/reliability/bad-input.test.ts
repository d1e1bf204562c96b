import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAD_INPUTS, startFakes, tryBadInput, type Fakes } from './lib/bad-inputs.js';

// Bad input through the real CLI: one line that says what is wrong and what to do, a stable code, no stack.
describe('bad input is refused with one clear line', () => {
  let fakes: Fakes;
  beforeAll(async () => {
    fakes = await startFakes();
  });
  afterAll(async () => {
    await fakes.close();
  });

  it.concurrent.each(BAD_INPUTS.map((b) => [b.name, b] as const))(
    '%s',
    { timeout: 120_000 },
    async (_n, b) => {
      const r = await tryBadInput(b, fakes);
      expect(r.problems, r.line).toEqual([]);
    },
  );
});
