// How each stack of the matrix is started and asked (harness.ts runs the legs).
import { fixtureBody, simTruth, type RealStack } from '../../helpers/real-stacks/index.js';
import { startSim, type SimHandle } from '../../../src/sim/index.js';
import type { StackUnderTest, Variant } from './harness.js';

/** An origin fixture (uvicorn, cpp-httplib, Go): 1 ms between tokens, the first 5 ms after the request. */
export function fixtureStack(
  name: string,
  variants: readonly Variant[],
  keepAliveS: number,
  start: (v: Variant) => Promise<RealStack>,
): StackUnderTest {
  return {
    name,
    variants,
    keepAliveS,
    start,
    origin: true,
    body: (tokens, extra = {}) => fixtureBody(tokens, { ttft_ms: 5, itl_ms: 1, ...extra }),
  };
}

/**
 * A proxy in front of the sim (in this process, so its truth log is on the client's own clock): the tiny
 * profile, 256 sequences at once, no early stops, usage in every event so each token is counted exactly.
 */
export function proxyStack(
  name: string,
  variants: readonly Variant[],
  keepAliveS: number,
  startProxy: (
    upstream: { url: string; truth: ReturnType<typeof simTruth> },
    v: Variant,
  ) => Promise<RealStack>,
): StackUnderTest {
  let sim: Promise<SimHandle> | undefined;
  return {
    name,
    variants,
    keepAliveS,
    origin: false,
    skip: {
      'Connection: close, Content-Length bodies':
        'the proxy frames and announces on its own; its closeEach variant is the announced close',
    },
    start: async (v) => {
      sim ??= startSim({
        profile: 'tiny',
        overrides: { maxNumSeqs: 256, earlyStopRate: 0, reasoningTokens: 0 },
        closeConnections: 'off',
      });
      const s = await sim;
      const proxy = await startProxy({ url: s.url, truth: simTruth(s) }, v);
      return {
        ...proxy,
        stop: async () => {
          await proxy.stop();
          await s.close();
        },
      };
    },
    body: (tokens) => ({
      model: 'sim/tiny',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: tokens,
      ignore_eos: true,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    }),
  };
}
