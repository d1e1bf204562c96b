// Real proxies in front of the sim (docs/method.md "Streams held back between client and server"). Measured
// here with the sim, uvicorn and Go origins and a raw Python client alike: nginx with its defaults (HTTP/1.0 to
// the upstream, proxy_buffering on) passes a stream on in 4 KB buffers (18 SSE events a read, whatever their
// pace), haproxy with its defaults lets the kernel merge writes for up to 200 ms: both cells are flagged.
// nginx with proxy_buffering off or proxy_http_version 1.1, and haproxy with option http-no-delay, pass each
// event on: not flagged, TTFT as direct. nginx with gzip on for text/event-stream holds the whole answer for a
// client that asks for gzip (the control below); this client never asks, and its TTFT is as direct.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/results/schema.js';
import type { SimHandle } from '../../src/sim/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { simTruth, startHaproxy, startNginx, type RealStack } from '../helpers/real-stacks/index.js';
import { readRun, runDirs, startTestSim, tempDir } from './run-helpers.js';

const STEP_MS = 10;
const TOKENS = 64; // 630 ms of decode at 10 ms steps: what a proxy holding the whole answer would add to TTFT

async function run(baseUrl: string): Promise<RunResult> {
  const out = tempDir('held-nginx');
  const r = await runCliInProcess([
    'run',
    '--base-url',
    baseUrl,
    '--contexts',
    '1K',
    '--prefill-contexts',
    '1K',
    '--concurrency',
    '1,4',
    '--max-output',
    String(TOKENS),
    '--duration',
    '1',
    '--settle-pause',
    '0.1',
    '--out',
    out,
    '--quiet',
  ]);
  expect(r.code, r.stderr).toBe(0);
  return readRun(runDirs(out)[0]!).result;
}

// One streamed request on a raw socket with the Accept-Encoding given: when its first byte came, and in how
// many reads the whole answer came.
async function rawStream(port: number, acceptEncoding: string): Promise<{ firstMs: number; reads: number }> {
  const body = JSON.stringify({
    model: sim!.profile.servedModelName,
    max_tokens: TOKENS,
    ignore_eos: true,
    stream: true,
    messages: [{ role: 'user', content: 'hi' }],
  });
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let t0 = 0;
    let firstMs = -1;
    let reads = 0;
    s.on('connect', () => {
      t0 = performance.now();
      s.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
          `accept-encoding: ${acceptEncoding}\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    s.on('data', () => {
      if (firstMs < 0) firstMs = performance.now() - t0;
      reads++;
    });
    s.on('end', () => resolve({ firstMs, reads }));
    s.on('error', reject);
    setTimeout(() => s.destroy(new Error('no answer in 30 s')), 30_000).unref();
  });
}

let sim: SimHandle | undefined;
let direct: RunResult | undefined;
const stacks: RealStack[] = [];
beforeAll(async () => {
  sim = await startTestSim({
    overrides: {
      decodeStepMs: [
        [1, STEP_MS],
        [16, STEP_MS],
      ],
    },
  });
  direct = await run(sim.baseUrl);
});
afterAll(async () => {
  for (const s of stacks) await s.stop();
  await sim?.close();
});

async function through(start: () => Promise<RealStack>): Promise<{ stack: RealStack; result: RunResult }> {
  const stack = await start();
  stacks.push(stack);
  return { stack, result: await run(stack.baseUrl) };
}

function notHeld(result: RunResult, why: string): void {
  for (const [i, c] of result.decode.entries()) {
    expect(c.status, why).toBe('Valid');
    expect(c.streamBatching?.batched, `${why}: ${JSON.stringify(c.streamBatching)}`).toBe(false);
    expect(c.streamBatching!.eventsPerRead, why).toBeLessThan(3);
    // TTFT as direct: far below the 180 ms a 4 KB buffer holds 18 events of 10 ms
    expect(c.ttftMs!, why).toBeLessThan(direct!.decode[i]!.ttftMs! + 100);
  }
}

function held(result: RunResult, why: string): void {
  for (const c of result.decode) {
    expect(c.status, why).toBe('Valid');
    const b = c.streamBatching!;
    expect(b.batched, `${why}: ${JSON.stringify(b)}`).toBe(true);
    expect(b.eventsPerRead, why).toBeGreaterThan(8);
    expect(b.heldMs!, why).toBeGreaterThan(100);
  }
}

const up = () => ({ url: sim!.url, truth: simTruth(sim!) });

describe('real proxies in front of the sim', () => {
  it('straight to the sim: not flagged', () => {
    for (const c of direct!.decode) expect(c.streamBatching?.batched).toBe(false);
  });

  it('nginx with its defaults holds the stream in 4 KB buffers: flagged', async () => {
    held((await through(() => startNginx(up()))).result, 'nginx defaults');
  });

  it('nginx with proxy_buffering off, or proxy_http_version 1.1: not flagged', async () => {
    notHeld((await through(() => startNginx(up(), { buffering: false }))).result, 'proxy_buffering off');
    notHeld(
      (await through(() => startNginx(up(), { upstreamHttp11: true }))).result,
      'proxy_http_version 1.1',
    );
  });

  it('haproxy with its defaults merges writes for up to 200 ms: flagged; with option http-no-delay not', async () => {
    held((await through(() => startHaproxy(up()))).result, 'haproxy defaults');
    notHeld((await through(() => startHaproxy(up(), { noDelay: true }))).result, 'haproxy http-no-delay');
  });

  it('nginx with gzip on text/event-stream: held for a client that asks for gzip, not for this one', async () => {
    const { stack, result } = await through(() =>
      startNginx(up(), { gzipEventStream: true, upstreamHttp11: true }),
    );
    notHeld(result, 'gzip on text/event-stream');
    // The control: the same nginx holds the whole answer when the client accepts gzip.
    const gzip = await rawStream(stack.port, 'gzip');
    const identity = await rawStream(stack.port, 'identity');
    expect(gzip.firstMs).toBeGreaterThan(0.6 * (TOKENS - 1) * STEP_MS);
    expect(gzip.reads).toBeLessThanOrEqual(3);
    expect(identity.firstMs).toBeLessThan(gzip.firstMs / 2);
    expect(identity.reads).toBeGreaterThan(10);
  });
});
