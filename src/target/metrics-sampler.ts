import type { ServerSample } from '../results/schema.js';
import { adapterByName } from './engines/index.js';
import { httpGet } from '../client/http.js';
import { createPowerMonitor } from './power-monitor.js';
import type { PowerMonitor } from './power-monitor.js';
import { readPromSample } from './read-sample.js';
import { serverRoot } from './probe.js';
import type { EngineAdapter, TargetInfo } from './types.js';
import { nowMs } from '../clock.js';
import { checkOptions, keysOf } from '../option-keys.js';

export interface MetricsSampler {
  start(windowOpenMs: number): void;
  stop(): Promise<ServerSample[]>;
  snapshot(): Promise<ServerSample | undefined>;
}

export interface MetricsSamplerOptions {
  baseUrl: string;
  apiKey?: string;
  intervalMs?: number; // default 500 (2 Hz)
  scrapeTimeoutMs?: number; // default 3000: llama.cpp took up to 3 s under load (docs/engines.md)
  maxSamples?: number; // bound on memory; the sampler stops by itself
  maxDurationMs?: number; // stops by itself if the runner never calls stop()
  now?: () => number;
  power?: PowerMonitor | null; // null: no power readings; undefined: from info.hardware
}

const defaultNow = nowMs;

// Scrapes on its own timer, one scrape at a time: a slow scrape skips ticks instead of piling up, and the
// client's streams never wait on it.
const KEYS = keysOf<MetricsSamplerOptions>({
  baseUrl: true,
  apiKey: true,
  intervalMs: true,
  scrapeTimeoutMs: true,
  maxSamples: true,
  maxDurationMs: true,
  now: true,
  power: true,
});

export function createMetricsSampler(info: TargetInfo, opts: MetricsSamplerOptions): MetricsSampler {
  checkOptions('createMetricsSampler', opts, KEYS);
  const intervalMs = opts.intervalMs ?? 500;
  const maxSamples = opts.maxSamples ?? 20_000;
  const maxDurationMs = opts.maxDurationMs ?? 6 * 3600_000;
  const now = opts.now ?? defaultNow;
  const url = metricsUrl(info, opts);
  const power = opts.power === null ? undefined : (opts.power ?? createPowerMonitor(info.hardware));
  const read = sampleReader(info, opts, url, power);
  let origin = 0;
  let startedAt = 0;
  let samples: ServerSample[] = [];
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let generation = 0; // a scrape that finishes after stop() or a restart must not land in the next window
  const collect = () => read(now() - origin);

  const tick = (): void => {
    if (inFlight) return;
    if (samples.length >= maxSamples || now() - startedAt > maxDurationMs) {
      halt();
      return;
    }
    const gen = generation;
    inFlight = collect()
      .then((s) => {
        if (s && timer && gen === generation) samples.push(s);
      })
      .catch(() => undefined)
      .finally(() => (inFlight = undefined));
  };

  const halt = (): void => {
    if (timer) clearInterval(timer);
    timer = undefined;
    power?.stop();
  };

  return {
    start(windowOpenMs) {
      halt();
      generation++;
      origin = windowOpenMs;
      startedAt = now();
      samples = [];
      if (!url && !power) return; // nothing readable: no timer at all
      power?.start();
      timer = setInterval(tick, intervalMs);
      timer.unref();
      tick();
    },
    async stop() {
      halt();
      const gen = generation;
      // Wait briefly for a scrape in progress; never hold the runner for a hung server.
      if (inFlight) await Promise.race([inFlight, new Promise((r) => setTimeout(r, 250).unref())]);
      const out = samples;
      samples = [];
      generation = gen + 1;
      return out;
    },
    snapshot: () => collect().catch(() => undefined),
  };
}

const metricsUrl = (info: TargetInfo, opts: MetricsSamplerOptions): string | undefined =>
  info.metricsAvailable ? serverRoot(opts.baseUrl) + (info.metricsPath ?? '/metrics') : undefined;

/**
 * One sample at `tMs`: the metrics the engine's adapter reads from a scrape, and the power reading;
 * undefined when neither answered.
 */
function sampleReader(
  info: TargetInfo,
  opts: MetricsSamplerOptions,
  url: string | undefined,
  power: PowerMonitor | undefined,
): (tMs: number) => Promise<ServerSample | undefined> {
  const adapter = safeAdapter(info.engine.name);
  return async (tMs) => {
    const s: ServerSample = { tMs };
    let any = false;
    if (url) {
      const r = await httpGet(url, { apiKey: opts.apiKey, timeoutMs: opts.scrapeTimeoutMs ?? 3000 });
      if (r.ok && r.status === 200) {
        const part = adapter?.readSample
          ? adapter.readSample(r.text)
          : readPromSample(r.text, info.metricNames ?? adapter?.metricNames ?? {});
        if (part) {
          Object.assign(s, part);
          any = true;
        }
      }
    }
    const w = power?.latestW();
    if (w !== undefined) {
      s.powerW = w;
      any = true;
    }
    return any ? s : undefined;
  };
}

function safeAdapter(name: string): EngineAdapter | undefined {
  try {
    return adapterByName(name);
  } catch {
    return undefined;
  }
}
