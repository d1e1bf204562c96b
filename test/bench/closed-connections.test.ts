// A run at one stream against the sim closing connections the way llama.cpp's cpp-httplib does, at the worst
// timing (src/sim/conn-close.ts: the request after a connection's 2nd response is written, never read, and gets
// the FIN alone): nothing lost on either transport, every re-send counted in the cell and said in
// requests.jsonl. In-process sim on 127.0.0.1, the CLI in-process.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OriginPolicies } from '../../src/client/origin-policy.js';
import { h1Pool } from '../../src/client/h1-pool.js';
import { readRequestLines } from '../../src/results/io.js';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runBench, tempDir, tinyArgs } from '../reliability/lib/bench-run.js';

let sim: SimHandle | undefined;
afterEach(async () => {
  h1Pool.close();
  OriginPolicies.forgetAll();
  await sim?.close();
  sim = undefined;
});

describe('a server that closes kept-alive connections right after a response (llama.cpp)', () => {
  it.each(['lean', 'undici'] as const)(
    '%s: no request lost at 1 stream, the re-sends counted',
    async (httpClient) => {
      sim = await startSim({ profile: 'tiny', flavor: 'llamacpp', seed: 3 }); // the flavor's default: close after 2
      const out = tempDir('closed-conn');
      const r = await runBench(sim.baseUrl, out, 'run', [
        ...tinyArgs('1K', '1'),
        '--http-client',
        httpClient,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const lines = readRequestLines(join(r.dir, 'requests.jsonl'));
      expect(lines.filter((l) => l.status !== 'ok' && l.errorKind !== 'aborted')).toEqual([]); // aborted: at the window's close
      const resent = lines.filter((l) => l.resentAfter !== undefined);
      // the first request written on a connection the sim had given up is sent again; from then on the origin is
      // known to close after responses, and each request takes a new connection
      expect(resent.length).toBeGreaterThanOrEqual(1);
      expect(sim.droppedRequests()).toBeGreaterThanOrEqual(resent.length); // and metrics scrapes, sent again too
      for (const l of resent) {
        expect(l.resentAfter).toBe('other side closed');
        expect(l.firstSentAtMs!).toBeLessThan(l.sentAtMs);
      }
      // every request the sim answered is one line of the log, once
      const answered = sim.truth().map((t) => t.requestId);
      expect(new Set(answered).size).toBe(answered.length);
      expect(new Set(answered)).toEqual(new Set(lines.map((l) => l.requestId)));
      const [cell] = r.result!.decode;
      expect(cell).toMatchObject({ contextTokens: 1024, concurrency: 1, status: 'Valid' });
      expect(cell!.errors ?? {}).toEqual({});
      const inCell = resent.filter(
        (l) => l.cell === 'decode 1024x1' && (l.phase === 'ramp' || l.phase === 'window'),
      ).length;
      expect(cell!.staleReconnects).toBe(inCell > 0 ? inCell : undefined);
    },
  );
});
