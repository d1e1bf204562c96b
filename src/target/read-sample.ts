import type { ServerSample } from '../results/schema.js';
import { meanOf, parsePrometheus, sumOf } from './prometheus.js';
import type { MetricNames } from './types.js';

const wantedCache = new WeakMap<MetricNames, Set<string>>();

export function wantedNames(names: MetricNames): Set<string> {
  let set = wantedCache.get(names);
  if (!set) {
    set = new Set(Object.values(names).flat() as string[]);
    wantedCache.set(names, set);
  }
  return set;
}

// One Prometheus scrape as a partial ServerSample; quantities the engine does not expose stay absent.
export function readPromSample(text: string, names: MetricNames): Partial<ServerSample> | undefined {
  const prom = parsePrometheus(text, wantedNames(names));
  if (prom.size === 0) return undefined;
  const s: Partial<ServerSample> = {};
  const put = <K extends keyof ServerSample>(k: K, v: number | null): void => {
    if (v !== null) (s as Record<string, number>)[k] = v;
  };
  put('running', sumOf(prom, names.running));
  put('waiting', sumOf(prom, names.waiting));
  put('kvUsage', meanOf(prom, names.kvUsage));
  put('prefixCacheHits', sumOf(prom, names.prefixHits));
  put('prefixCacheQueries', sumOf(prom, names.prefixQueries));
  put('specDrafts', sumOf(prom, names.specDrafts));
  put('specDraftTokens', sumOf(prom, names.specDraftTokens));
  put('specAcceptedTokens', sumOf(prom, names.specAccepted));
  put('specAcceptLength', meanOf(prom, names.specAcceptLength));
  return s;
}
