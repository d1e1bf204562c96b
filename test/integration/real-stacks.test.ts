// The real-stack launchers themselves (test/helpers/real-stacks): each server starts on 127.0.0.1, answers one
// streamed request with what its truth log says it sent, and stops. The conformance matrix against them is in
// test/integration/conformance/.
import { afterAll, describe, expect, it } from 'vitest';
import { streamRequest } from '../../src/client/stream.js';
import { startSim, type SimHandle } from '../../src/sim/server.js';
import {
  fixtureBody,
  simTruth,
  startCppHttplib,
  startGo,
  startHaproxy,
  startNginx,
  startUvicorn,
  type RealStack,
} from '../helpers/real-stacks/index.js';

const stacks: RealStack[] = [];
let sim: SimHandle | undefined;
afterAll(async () => {
  await Promise.all(stacks.map((s) => s.stop()));
  await sim?.close();
});

async function oneOfEach(s: RealStack, body: Record<string, unknown>, perEvent = true) {
  stacks.push(s);
  for (const httpClient of ['lean', 'undici'] as const) {
    const requestId = `${s.name}-${httpClient}`;
    const r = await streamRequest({ baseUrl: s.baseUrl, api: 'chat', body, requestId, httpClient });
    expect(r.error, `${requestId}: ${s.output()}`).toBeUndefined();
    const truth = s.truth().find((t) => t.requestId === requestId);
    expect(truth, `${requestId} in the truth log`).toBeDefined();
    expect(r.outputTokens).toBe(truth!.tokens);
    if (perEvent) expect(r.chunks.map(([, n]) => n)).toEqual(truth!.chunks.map(([, n]) => n));
    // the first token left the server before the client read it, on one clock
    expect(r.firstTokenAtMs!).toBeGreaterThanOrEqual(truth!.chunks[0]![0] - 0.05);
  }
}

describe.concurrent('real HTTP stacks start, stream and stop', () => {
  it('uvicorn (h11)', async () => oneOfEach(await startUvicorn(), fixtureBody(12, { per_chunk: 2 })));
  it('uvicorn (httptools, uvloop)', async () =>
    oneOfEach(await startUvicorn({ http: 'httptools' }), fixtureBody(12, { framing: 'length' })));
  it('cpp-httplib', async () => oneOfEach(await startCppHttplib(), fixtureBody(12)));
  it('Go net/http', async () => oneOfEach(await startGo(), fixtureBody(12, { per_chunk: 3 })));
  it('nginx and haproxy in front of the sim', async () => {
    sim = await startSim({ profile: 'tiny' });
    const up = { url: sim.url, truth: simTruth(sim) };
    const body = {
      model: sim.profile.servedModelName,
      max_tokens: 8,
      messages: [{ role: 'user', content: 'hi' }],
    };
    await oneOfEach(await startNginx(up), body, false);
    await oneOfEach(await startNginx(up, { buffering: false, gzipEventStream: true }), body, false);
    await oneOfEach(await startHaproxy(up), body, false);
  });
});
