import { describe, expect, it } from 'vitest';
import { optionsFor } from '../../src/config/options.js';
import { waitReady } from '../../src/sweep/ready.js';

// A fetch that answers by path from a script: no socket, the wait's decisions alone.
function fakeFetch(answer: (path: string, call: number) => number): { f: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  const f = (async (url: string | URL | Request) => {
    const path = new URL(String(url)).pathname;
    calls.push(path);
    const status = answer(path, calls.length);
    if (status === 0) throw new TypeError('fetch failed'); // connection refused
    return new Response(null, { status });
  }) as typeof fetch;
  return { f, calls };
}

const never = new Promise<never>(() => undefined);

describe('waiting for a started server', () => {
  it('is ready on /v1/models when /health is not served (Ollama), after refusals while it starts', async () => {
    const { f, calls } = fakeFetch((path, call) => (call <= 4 ? 0 : path === '/health' ? 404 : 200));
    const r = await waitReady({
      port: 1,
      timeoutS: 30,
      gone: never,
      stop: new AbortController().signal,
      fetchFn: f,
    });
    expect(r).toMatchObject({ ready: true, path: '/v1/models' });
    expect(calls.slice(0, 4)).toEqual(['/health', '/v1/models', '/health', '/v1/models']);
  });

  it("is not ready while llama.cpp's /health says 503 (loading), and gives up at the timeout", async () => {
    const { f } = fakeFetch(() => 503);
    const r = await waitReady({
      port: 1,
      timeoutS: 0.5,
      gone: never,
      stop: new AbortController().signal,
      fetchFn: f,
    });
    expect(r).toMatchObject({ ready: false, why: 'timeout' });
    expect(r.seconds).toBeGreaterThanOrEqual(0.5);
  });

  it('stops waiting when the server is gone, or when the sweep is interrupted', async () => {
    const { f } = fakeFetch(() => 0);
    const gone = await waitReady({
      port: 1,
      timeoutS: 60,
      gone: Promise.resolve(),
      stop: new AbortController().signal,
      fetchFn: f,
    });
    expect(gone).toMatchObject({ ready: false, why: 'gone' });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    const interrupted = await waitReady({
      port: 1,
      timeoutS: 60,
      gone: never,
      stop: stop.signal,
      fetchFn: f,
    });
    expect(interrupted).toMatchObject({ ready: false, why: 'interrupted' });
  });
});

describe('sweep options', () => {
  it('takes every run flag but the two it sets itself and the agent ones', () => {
    const sweep = new Set(optionsFor('sweep').map((o) => o.key));
    // A sweep's runs are one client each: the options of a run over several agents (docs/distributed.md) are run's.
    const agents = [
      'agents',
      'agentIndex',
      'coordinator',
      'local',
      'agentTimeout',
      'agentWait',
      'agentTokenFile',
    ];
    expect(
      optionsFor('run')
        .filter((o) => !sweep.has(o.key) && !agents.includes(o.key))
        .map((o) => o.key),
    ).toEqual(['baseUrl', 'launchCommand']);
  });
});
