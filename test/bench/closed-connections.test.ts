// A run at one stream against the sim closing connections the way llama.cpp's cpp-httplib does, at the worst
// timing (src/sim/conn-close.ts: the request after a connection's 2nd response is written, never read, and gets
// the FIN alone): nothing lost on either transport, every re-send counted in the cell and said in
// requests.jsonl. In-process sim on 127.0.0.1, the CLI in-process.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OriginPolicies } from '../../src/client/transport/origin-policy.js';
import { h1Pool } from '../../src/client/transport/h1-pool.js';
import { readRequestLines } from '../../src/results/io.js';
import { streamRequest } from '../../src/client/stream.js';
import { getJson } from '../../src/client/http.js';
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
      // The first request written on a connection the sim had given up is sent again; from then on the origin is
      // known to close after responses, and each request takes a new connection. The lean pool reuses its one
      // connection, so its third streamed request meets the close for certain; undici may spread requests over
      // two sockets (one is checked for a loop turn after each response), so in a short run it may not (the
      // test below sends enough requests that one must).
      if (httpClient === 'lean') expect(resent.length).toBeGreaterThanOrEqual(1);
      expect(sim.droppedRequests()).toBeGreaterThanOrEqual(resent.length); // and metrics scrapes, sent again too
      for (const l of resent) {
        expect(l.resentAfter).toBe('other side closed');
        expect(l.firstSentAtMs!).toBeLessThan(l.sentAtMs);
      }
      // every request the sim answered is one line of the log, once
      const answered = sim.truth().map((t) => t.requestId ?? '(none)');
      expect(new Set(answered).size).toBe(answered.length);
      const logged = new Set(lines.map((l) => l.requestId));
      expect(answered.filter((id) => !logged.has(id))).toEqual([]);
      // a request aborted at the window's close may never have reached the sim's handler
      const done = lines.filter((l) => l.errorKind !== 'aborted').map((l) => l.requestId);
      expect(done.filter((id) => !answered.includes(id))).toEqual([]);
      const [cell] = r.result!.decode;
      expect(cell).toMatchObject({ contextTokens: 1024, concurrency: 1, status: 'Valid' });
      expect(cell!.errors ?? {}).toEqual({});
      const inCell = resent.filter(
        (l) => l.cell === 'decode 1024x1' && (l.phase === 'ramp' || l.phase === 'window'),
      ).length;
      expect(cell!.staleReconnects).toBe(inCell > 0 ? inCell : undefined);
    },
  );

  it.each(['lean', 'undici'] as const)(
    '%s: twelve requests one after another, none lost, the one that met the close sent again',
    async (httpClient) => {
      sim = await startSim({ profile: 'tiny', flavor: 'llamacpp' });
      const records = [];
      for (let i = 0; i < 12; i++)
        records.push(
          await streamRequest({
            baseUrl: sim.baseUrl,
            api: 'chat',
            body: { model: 'sim/tiny', messages: [{ role: 'user', content: `q${i}` }], max_tokens: 4 },
            requestId: `r${i}`,
            httpClient,
          }),
        );
      expect(records.map((r) => r.error)).toEqual(Array(12).fill(undefined));
      // at most two sockets at one stream: some socket carries a third request within the first five, and
      // meets the close; after that the origin is known and no request meets it again
      const resent = records.flatMap((r, i) => (r.resent ? [i] : []));
      expect(resent).toHaveLength(1);
      expect(resent[0]).toBeLessThan(5);
      expect(sim.droppedRequests()).toBe(1);
      expect(sim.truth().map((t) => t.requestId)).toEqual(records.map((_, i) => `r${i}`));
    },
  );

  it('probes and metrics scrapes (http.ts): none lost, the one that met the close sent again', async () => {
    sim = await startSim({ profile: 'tiny', flavor: 'llamacpp' });
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await getJson(sim.baseUrl, '/models'));
    expect(answers.map((a) => a.ok)).toEqual(Array(8).fill(true));
    expect(sim.droppedRequests()).toBe(1);
  });
});
