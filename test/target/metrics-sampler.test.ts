import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetricsSampler } from '../../src/target/metrics-sampler.js';
import { nvidiaLoop } from '../../src/target/power-monitor.js';
import type { PowerMonitor } from '../../src/target/power-monitor.js';
import { probeTarget } from '../../src/target/probe.js';
import type { FixtureServer } from './fixture-server.js';
import { fixtureText, serveFixture } from './fixture-server.js';

let srv: FixtureServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});
const noHw = { source: 'none' as const };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('metrics sampler', () => {
  it('samples vLLM /metrics on its own timer, relative to the window open', async () => {
    srv = await serveFixture('vllm');
    const info = await probeTarget({ baseUrl: srv.url, hardware: noHw });
    // The sampler's clock is the test's: the first scrape goes out as the window opens (5,000), every later one
    // after the clock has moved to 5,120, however late a busy machine runs the timer.
    let clock = 5_000;
    const sampler = createMetricsSampler(info, {
      baseUrl: srv.url + '/v1',
      intervalMs: 50,
      power: null,
      now: () => clock,
    });
    sampler.start(5_000);
    clock = 5_120;
    await sleep(400);
    const samples = await sampler.stop();
    // 400 ms at 50 ms: at most 9 ticks; a busy machine delays ticks, so fewer is fine, none is not
    expect(samples.length).toBeGreaterThanOrEqual(2);
    expect(samples.length).toBeLessThanOrEqual(10);
    expect(samples[0]).toMatchObject({
      running: 5,
      waiting: 1,
      kvUsage: 0.3,
      prefixCacheHits: 150000,
      prefixCacheQueries: 200000,
      specDrafts: 1000,
      specAcceptedTokens: 3500,
      specDraftTokens: 7000,
    });
    expect(samples.map((x) => x.tMs)).toEqual([0, ...samples.slice(1).map(() => 120)]);
    // Stopped: no more scrapes.
    const n = srv.requests.length;
    await sleep(150);
    expect(srv.requests.length).toBe(n);
    // Snapshot works outside a window.
    expect(await sampler.snapshot()).toMatchObject({ running: 5 });
  });

  it('a slow scrape skips ticks instead of piling up, and stop() does not wait for it', async () => {
    let hits = 0;
    // The scrape is answered only when the test says so: a stop() that waited for it would never return.
    let answer: () => void = () => undefined;
    const slow = createServer((_req, res) => {
      hits++;
      answer = () => res.end(fixtureText('vllm', 'metrics.txt'));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    try {
      const sampler = createMetricsSampler(
        {
          engine: { name: 'vllm' },
          models: ['m'],
          model: 'm',
          metricsAvailable: true,
          extensions: {
            ignoreEos: true,
            minTokens: true,
            streamOptions: true,
            continuousUsage: true,
            maxCompletionTokens: true,
          },
          hardware: noHw,
        },
        { baseUrl: url, intervalMs: 20, power: null },
      );
      sampler.start(0);
      for (let i = 0; i < 500 && hits < 1; i++) await sleep(20);
      await sleep(200); // 10 more ticks at 20 ms while the first scrape waits
      const samples = await sampler.stop();
      expect(hits).toBe(1); // one scrape in flight at a time
      expect(samples).toEqual([]);
      // The answer that comes after the stop lands in no window.
      answer();
      await sleep(50);
      expect(await sampler.stop()).toEqual([]);
    } finally {
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });

  it('is bounded: stops by itself at maxSamples', async () => {
    srv = await serveFixture('vllm');
    const info = await probeTarget({ baseUrl: srv.url, hardware: noHw });
    const sampler = createMetricsSampler(info, {
      baseUrl: srv.url,
      intervalMs: 10,
      maxSamples: 3,
      power: null,
    });
    const scrapes = () => srv!.requests.filter((r) => r.path.endsWith('/metrics')).length;
    const probed = scrapes();
    sampler.start(0);
    // However slowly a busy machine runs the timer: three scrapes come, then no fourth.
    for (let i = 0; i < 500 && scrapes() - probed < 3; i++) await sleep(20);
    expect(scrapes() - probed).toBe(3);
    await sleep(200); // 20 more ticks at 10 ms, had the sampler not stopped
    expect(scrapes() - probed).toBe(3);
    expect((await sampler.stop()).length).toBe(3);
  });

  it('without metrics or power there is no timer and no sample', async () => {
    srv = await serveFixture('ollama');
    const info = await probeTarget({ baseUrl: srv.url, hardware: noHw });
    const sampler = createMetricsSampler(info, { baseUrl: srv.url, intervalMs: 10 });
    const n = srv.requests.length;
    sampler.start(0);
    await sleep(100);
    expect(await sampler.stop()).toEqual([]);
    expect(srv.requests.length).toBe(n);
  });

  it('adds GPU power from a power monitor to each sample', async () => {
    srv = await serveFixture('vllm');
    const info = await probeTarget({ baseUrl: srv.url, hardware: noHw });
    let started = false;
    const power: PowerMonitor = {
      start: () => (started = true),
      latestW: () => 812.5,
      stop: () => (started = false),
    };
    const sampler = createMetricsSampler(info, { baseUrl: srv.url, intervalMs: 50, power });
    sampler.start(0);
    expect(started).toBe(true);
    await sleep(200);
    const samples = await sampler.stop();
    expect(started).toBe(false);
    expect(samples.length).toBeGreaterThan(0);
    for (const s of samples) expect(s.powerW).toBe(812.5);
  });

  it('nvidia-smi loop mode: sums a batch of one line per GPU, skips [N/A]', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-smi-'));
    const script = join(dir, 'nvidia-smi');
    const loop = fileURLToPath(new URL('../fixtures/hardware/nvidia-smi-power-loop.txt', import.meta.url));
    writeFileSync(script, `#!/bin/sh\ncat '${loop}'\nsleep 5\n`);
    chmodSync(script, 0o755);
    const mon = nvidiaLoop(4, script, 500);
    mon.start();
    for (let i = 0; i < 50 && mon.latestW() !== 600; i++) await sleep(20);
    expect(mon.latestW()).toBeCloseTo(600, 9);
    mon.stop();
  });
});
