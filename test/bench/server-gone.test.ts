import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import type { RunResult } from '../../src/results/schema.js';
import { runCliInProcess } from '../helpers/cli.js';
import { fastFlags, tempDir } from '../integration/run-helpers.js';

let sim: SimHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

// A server killed in the middle of a decode cell left that cell Failed (some of its requests had streamed), and
// the next prefill point Failed on refused connections: the run went on and ended "complete" with exit 0. A prefill
// point refused on every repeat now stops the run as a decode cell does, with the command that continues it.
describe('a server that stops answering between a cell and the next prefill point', () => {
  it('stops the run with TARGET_UNREACHABLE, the point not kept, and a resume command', async () => {
    // Requests 1-9 answered (connect, three 1K repeats, the warm-up, the first requests of 1K x1), then refused.
    sim = await startSim({ profile: 'demo', faults: 'refuse:rate=1:after=9' });
    const out = tempDir('gone');
    const args = [
      ...fastFlags(sim.baseUrl, out),
      '--contexts',
      '1K,2K',
      '--concurrency',
      '1',
      '--max-output',
      '16',
    ];
    const r = await runCliInProcess(['run', ...args, '--run-id', 'g1']);
    expect(r.code, r.stderr).toBe(3);
    const dir = join(out, 'g1');
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error'))).toEqual([
      `error [TARGET_UNREACHABLE]: the server stopped answering during prefill 2K. Finished cells are kept; ` +
        `continue later with \`npx llm-inference-bench run --resume ${dir}\`.`,
    ]);
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
    expect(result.status).toBe('failed');
    expect(result.prefill.map((p) => p.contextTokens)).toEqual([1024]);
  });
});
