import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBenchError } from '../../src/errors.js';
import { runVirtual, virtualSettings } from './virtual-run.js';

// A refusal no retry can fix, arriving in the middle of a decode cell (the sim's faults start after the
// connect request, two prefill repeats and the warm-up: request 5 on is inside the first cell's window).
const settings = (out: string) =>
  virtualSettings(out, {
    contexts: [1024, 2048],
    prefillContexts: [1024],
    concurrency: [1, 2],
    maxOutput: 50,
    duration: 1,
  });

describe('fatal errors during a decode cell (virtual time)', () => {
  it('a wrong key stops the run: result failed, the error kept, finished cells kept', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-fatal-'));
    const run = await runVirtual(settings(out), { sim: { faults: '401:after=8' } });
    expect(isBenchError(run.error) && run.error.code).toBe('AUTH_FAILED');
    expect(isBenchError(run.error) && run.error.message).toMatch(/during decode 1K x1/);
    expect(isBenchError(run.error) && run.error.hint).toMatch(/--api-key/);
    expect(run.result.status).toBe('failed');
    expect(run.result.error?.code).toBe('AUTH_FAILED');
    expect(run.result.decode).toEqual([]); // the cell in progress is not kept
    expect(run.result.prefill.map((p) => p.status)).toEqual(['Valid']);
  });

  it('too long found inside a cell: that cell and every larger context Failed, the run completes', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-fatal-'));
    const run = await runVirtual(settings(out), { sim: { faults: 'too-long:after=8' } });
    expect(isBenchError(run.error) && run.error.code).toBe('CONTEXT_TOO_LONG');
    expect(run.result.status).toBe('complete');
    expect(run.result.decode.map((c) => `${c.contextTokens}x${c.concurrency} ${c.status}`)).toEqual([
      '1024x1 Failed',
      '1024x2 Failed',
      '2048x1 Failed',
      '2048x2 Failed',
    ]);
    expect(run.result.decode[0]!.error).toMatch(/^CONTEXT_TOO_LONG: .*during decode 1K x1/);
    expect(run.result.error?.code).toBe('CONTEXT_TOO_LONG');
  });
});
