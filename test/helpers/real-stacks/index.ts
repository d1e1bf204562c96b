// Real HTTP stacks on 127.0.0.1 for integration tests (never the fast tier: these are child processes).
//
//   const s = await startUvicorn({ http: 'httptools', keepAliveS: 1 });   // or startCppHttplib, startGo
//   const sim = await startSim({ profile: 'tiny' });
//   const n = await startNginx({ url: sim.url, truth: simTruth(sim) }, { buffering: false });
//   ... streamRequest({ baseUrl: s.baseUrl, api: 'chat', body: fixtureBody(16, { itl_ms: 2 }) }) ...
//   s.truth();                                                             // what the server sent, and when
//   await s.stop(); await n.stop(); await sim.close();
//
// Origins (origins.ts) are the stacks engines run on, each serving the same fixture: uvicorn + FastAPI/Starlette
// (vLLM, SGLang, trtllm-serve, LiteLLM; h11, or httptools + uvloop as vLLM runs it), cpp-httplib (llama.cpp;
// Debian's libcpp-httplib 0.11.4, compiled with g++ on first use and cached by content hash, build.ts), Go's
// net/http (Ollama; built offline). Proxies (proxies.ts): nginx and haproxy in front of any upstream, with
// their own config, pid and temp paths under a scratch folder. Every server is its own process group, stopped
// by stop() and killed when the test process exits. Needs Debian's python3-uvicorn, python3-fastapi,
// python3-httptools, python3-uvloop, libcpp-httplib-dev, g++, golang-go, nginx, haproxy (.ci/run installs them).
//
// The fixture protocol: POST /v1/chat/completions or /v1/completions with a JSON body. `max_tokens` tokens
// (default 16) stream as OpenAI SSE: a role event with the headers, the first token event `ttft_ms` later,
// then one event every `itl_ms` carrying `per_chunk` tokens, each with cumulative usage (so every token is
// counted exactly), a finish event ("length") and `data: [DONE]`. Flat body fields set the script:
// fixture_ttft_ms (5), fixture_itl_ms (2), fixture_per_chunk (1), fixture_framing ("chunked" | "length":
// a Content-Length body), fixture_close (1: the response says Connection: close). The truth log has one
// line per request: its X-Request-Id, when the handler got it, and each token event's send time (stamped
// just before the write) in CLOCK_MONOTONIC µs, which readTruth puts on the client's nowMs() timeline.
import type { SimHandle } from '../../../src/sim/server.js';
import type { FixtureTruth } from './origins.js';

export { startUvicorn, startCppHttplib, startGo, readTruth, startUnansweredListener } from './origins.js';
export type { FixtureTruth, RealStack, UvicornOptions, CppHttplibOptions, GoOptions } from './origins.js';
export { startNginx, startHaproxy } from './proxies.js';
export type { Upstream, NginxOptions, HaproxyOptions } from './proxies.js';

export interface FixtureScript {
  ttft_ms?: number;
  itl_ms?: number;
  per_chunk?: number;
  framing?: 'chunked' | 'length';
  close?: 0 | 1;
}

/** A request body for the fixtures: `tokens` tokens on `script`'s timing. */
export function fixtureBody(tokens: number, script: FixtureScript = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: 'fixture',
    max_tokens: tokens,
    messages: [{ role: 'user', content: 'hi' }],
  };
  for (const [k, v] of Object.entries(script)) if (v !== undefined) body[`fixture_${k}`] = v;
  return body;
}

/** The sim's ground truth in the fixtures' shape (a proxy's upstream). */
export function simTruth(sim: Pick<SimHandle, 'truth'>): () => FixtureTruth[] {
  return () =>
    sim.truth().map((t) => ({
      requestId: t.requestId ?? '',
      arrivalMs: t.arrivalMs,
      chunks: t.chunks.map(([ms, n]) => [ms, n] as [number, number]),
      endMs: t.endMs,
      tokens: t.outputTokens,
    }));
}
