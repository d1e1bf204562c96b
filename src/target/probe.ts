import os from 'node:os';
import { BenchError, isBenchError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import type { Hardware } from '../results/schema.js';
import { ADAPTERS, adapterByName } from './engines/index.js';
import type { HardwareOverrides } from './hardware.js';
import { detectHardware } from './hardware.js';
import { httpGet, httpPost, type HttpResult } from '../client/http.js';
import { findLaunchCommand, isLoopbackOrLocal } from './launch-command.js';
import type { EngineFlags } from './metadata.js';
import { buildEngine } from './metadata.js';
import { listModels, pickModel } from './models.js';
import { readPromSample } from './read-sample.js';
import { redactCommandLine } from './redact.js';
import { obj, posInt } from './discovery-util.js';
import { limitsFromLaunch, type LaunchLimits } from '../engines/index.js';
import { isSimEngine, servedSimProfile } from './sim-target.js';
import type { Discovery, EngineAdapter, ModelsListing, ProbeContext, TargetInfo } from './types.js';
import { checkOptions, keysOf } from '../option-keys.js';

export interface ProbeOptions {
  baseUrl: string;
  apiKey?: string;
  model?: string;
  engine?: string; // overrides detection
  fetchTimeoutMs?: number;
  engineFlags?: EngineFlags;
  hardware?: HardwareOverrides | Hardware; // overrides (--gpu-name...) or a complete Hardware (sim)
  detectLocalHardware?: boolean; // default: when the server is on this machine
  launchCommand?: string; // --launch-command; otherwise read from the local listening process
  procRoot?: string;
}

// The facts a user states for the report (--gpu-name, --engine-version, ...), flat as the options carry them,
// grouped as the probe takes them.
export function probeFacts(o: HardwareOverrides & EngineFlags): {
  hardware: HardwareOverrides;
  engineFlags: EngineFlags;
} {
  const {
    gpuName,
    gpuCount,
    gpuMemoryGb,
    engineVersion,
    engineCommit,
    quantization,
    backend,
    build,
    repository,
  } = o;
  return {
    hardware: { gpuName, gpuCount, gpuMemoryGb },
    engineFlags: { engineVersion, engineCommit, quantization, backend, build, repository },
  };
}

// Server root without a trailing /v1, userinfo removed (a result never carries credentials).
export function serverRoot(baseUrl: string): string {
  let u: URL;
  try {
    u = parseBaseUrl(baseUrl);
  } catch {
    throw new BenchError('USAGE', `--base-url "${baseUrl}" is not a URL.`, {
      hint: 'Example: http://127.0.0.1:8000/v1',
    });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new BenchError('USAGE', `--base-url must be http(s), got ${u.protocol}`, {
      hint: 'Example: http://127.0.0.1:8000/v1',
    });
  }
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  return u.toString().replace(/\/+$/, '').replace(/\/v1$/, '');
}

const parseBaseUrl = (baseUrl: string): URL =>
  new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(baseUrl) ? baseUrl : `http://${baseUrl}`); // `host:8000/v1` works too

// Query parameters that carry a key in the URL forms some gateways take (?api_key=..., ?key=...).
const KEY_PARAM = /^(api[-_]?key|key|access[-_]?token|token)$/i;

// The credentials a --base-url carries (user:key@host, ?api_key=...): never sent, since the URL is stripped of them
// before it is stored or logged. The values, so they can be kept out of every output.
export function urlCredentials(baseUrl: string): string[] {
  let u: URL;
  try {
    u = parseBaseUrl(baseUrl);
  } catch {
    return [];
  }
  const user = u.password || u.username; // a lone user name is the key (http://sk-...@host)
  const params = [...u.searchParams].filter(([k, v]) => KEY_PARAM.test(k) && v !== '').map(([, v]) => v);
  return [...(user ? [user, safeDecode(user)] : []), ...params];
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// A refusal without a key, where the key was in --base-url: say it was not sent, and how to send it (never the key).
function credentialsNotSent(e: unknown, o: Pick<ProbeOptions, 'apiKey' | 'baseUrl'>): unknown {
  if (!isBenchError(e) || e.code !== 'AUTH_FAILED' || o.apiKey || urlCredentials(o.baseUrl).length === 0)
    return e;
  return new BenchError('AUTH_FAILED', e.message, {
    hint: 'Credentials in --base-url are not sent; pass --api-key-file or OPENAI_API_KEY.',
  });
}

export function createProbeContext(
  root: string,
  apiKey: string | undefined,
  timeoutMs: number,
): ProbeContext {
  const cache = new Map<string, Promise<HttpResult>>();
  return {
    root,
    apiKey,
    timeoutMs,
    get(path) {
      let p = cache.get(path);
      if (!p) {
        p = httpGet(root + path, { apiKey, timeoutMs });
        cache.set(path, p);
      }
      return p;
    },
    post: (path, body, ms) => httpPost(root + path, body, { apiKey, timeoutMs: ms ?? timeoutMs }),
  };
}

export async function detectEngine(
  ctx: ProbeContext,
  listing: ModelsListing,
  adapters: readonly EngineAdapter[] = ADAPTERS,
): Promise<{ adapter: EngineAdapter; detectedBy: string }> {
  for (const adapter of adapters) {
    if (listing.models.some((m) => m.ownedBy !== undefined && adapter.ownedBy?.includes(m.ownedBy))) {
      return { adapter, detectedBy: 'GET /v1/models owned_by' };
    }
  }
  // One round trip instead of one per engine: every fingerprint GET at once (memoised, none generates).
  await Promise.all([...new Set(adapters.flatMap((a) => a.fingerprintPaths))].map((p) => ctx.get(p)));
  for (const adapter of adapters) {
    const evidence = await adapter.fingerprint(ctx, listing);
    if (evidence) return { adapter, detectedBy: evidence };
  }
  // ADAPTERS ends with generic, whose fingerprint always answers.
  throw new BenchError('INTERNAL', 'no engine adapter matched');
}

const KEYS = keysOf<ProbeOptions>({
  baseUrl: true,
  apiKey: true,
  model: true,
  engine: true,
  fetchTimeoutMs: true,
  engineFlags: true,
  hardware: true,
  detectLocalHardware: true,
  launchCommand: true,
  procRoot: true,
});

// opts.baseUrl as the user gave it: credentials in it are stripped here, and named if the server then refuses.
export async function probeTarget(opts: ProbeOptions): Promise<TargetInfo> {
  checkOptions('probeTarget', opts, KEYS);
  registerSecret(opts.apiKey);
  urlCredentials(opts.baseUrl).forEach(registerSecret);
  const root = serverRoot(opts.baseUrl);
  const forced = opts.engine !== undefined ? adapterByName(opts.engine) : undefined;
  const ctx = createProbeContext(root, opts.apiKey, opts.fetchTimeoutMs ?? 5000);
  const listing = await listModels(ctx).catch((e: unknown) => {
    throw credentialsNotSent(e, opts);
  });
  const { adapter, detectedBy } = forced
    ? { adapter: forced, detectedBy: '--engine' }
    : await detectEngine(ctx, listing);
  const model = pickModel(listing, opts.model, await adapter.preferredModel?.(ctx, listing));
  const d = await adapter.discover(ctx, model, listing);

  const host = new URL(root).hostname;
  const local = isLoopbackOrLocal(host, localAddresses());
  const hardware = isCompleteHardware(opts.hardware)
    ? opts.hardware
    : await detectHardware({ local: opts.detectLocalHardware ?? local, overrides: opts.hardware ?? {} });
  const launchCommand = opts.launchCommand
    ? redactCommandLine(opts.launchCommand)
    : local
      ? await findLaunchCommand(portOf(root), opts.procRoot).catch(() => undefined)
      : undefined;

  const info: TargetInfo = {
    engine: buildEngine(adapter, d, opts.engineFlags ?? {}, {
      forced: forced !== undefined,
      detectedBy,
      hardware,
      launchCommand,
    }),
    models: listing.models.map((m) => m.id),
    model: model.id,
    metricsAvailable: d.metricsAvailable,
    extensions: { ...adapter.extensions },
    hardware,
  };
  if (d.maxModelLen)
    Object.assign(info, { maxModelLen: d.maxModelLen, maxModelLenSource: d.maxModelLenSource });
  const nCtxTrain = posInt(obj(model.raw.meta)?.n_ctx_train);
  const launched = launchCommand
    ? limitsFromLaunch(adapter.name, launchCommand, nCtxTrain ? { nCtxTrain } : {})
    : undefined;
  Object.assign(info, kvCapacity(d, launched), servingShape(adapter, d, launched));
  if (d.metricsAvailable)
    Object.assign(info, { metricsPath: d.metricsPath ?? '/metrics', metricNames: adapter.metricNames });
  if (d.metricsAvailable)
    info.metricsPresent = await presentMetrics(ctx, adapter, info.metricsPath ?? '/metrics');
  if (adapter.reasoningField) info.reasoningField = adapter.reasoningField;
  info.cachedTokensSource = adapter.cachedTokensSource;
  info.tokenizeAvailable = d.tokenize !== undefined;
  if (d.tokenize) {
    info.tokenize = d.tokenize;
    info.tokenizeCoversTemplate = d.tokenizeCoversTemplate === true;
    if (d.tokenizeMethod) info.tokenizeMethod = d.tokenizeMethod;
  }
  if (launchCommand) info.launchCommand = launchCommand;
  if (d.warnings?.length) info.warnings = d.warnings;
  const simProfile = isSimEngine(info.engine) ? await servedSimProfile(ctx) : undefined;
  if (simProfile) info.simProfile = simProfile;
  return info;
}

// The best capacity source (docs/engines.md "KV capacity: where it comes from, and how sure"): the engine's own
// report when it is exact, else the launch command when it is readable and sizes the pool, else what the API shows,
// with how sure each figure is.
function kvCapacity(
  d: Discovery,
  fromLaunch: LaunchLimits | undefined,
): Pick<TargetInfo, 'kvCapacityTokens' | 'kvCapacitySource' | 'kvCapacityBound'> {
  const bound = d.kvCapacityBound ?? 'exact';
  if (d.kvCapacityTokens && bound === 'exact')
    return {
      kvCapacityTokens: d.kvCapacityTokens,
      kvCapacitySource: d.kvCapacitySource,
      kvCapacityBound: bound,
    };
  if (fromLaunch?.kvTokens)
    return {
      kvCapacityTokens: fromLaunch.kvTokens,
      kvCapacitySource: fromLaunch.source,
      kvCapacityBound: 'exact',
    };
  if (!d.kvCapacityTokens) return {};
  return {
    kvCapacityTokens: d.kvCapacityTokens,
    kvCapacitySource: d.kvCapacitySource,
    kvCapacityBound: bound,
  };
}

// The seats the server states (its API first, then its launch command), and its KV layout where the engine has more
// than one and the server or its command says which (src/engines: llama.cpp split or unified).
function servingShape(
  adapter: EngineAdapter,
  d: Discovery,
  fromLaunch: LaunchLimits | undefined,
): Pick<TargetInfo, 'seats' | 'seatsSource' | 'kvLayout'> {
  const seats = d.seats
    ? { seats: d.seats, seatsSource: d.seatsSource ?? 'the server' }
    : fromLaunch?.seats
      ? { seats: fromLaunch.seats, seatsSource: fromLaunch.seatsSource ?? fromLaunch.source }
      : {};
  const layout = fromLaunch?.layout ?? d.kvLayout;
  return {
    ...seats,
    ...(layout && adapter.facts.limits.layouts.length > 1 ? { kvLayout: layout } : {}),
  };
}

// Which sample fields the server exposes right now (memoised GET: TRT-LLM's draining /metrics is read once).
async function presentMetrics(ctx: ProbeContext, adapter: EngineAdapter, path: string): Promise<string[]> {
  const r = await ctx.get(path);
  if (!r.ok || r.status !== 200) return [];
  const s = adapter.readSample ? adapter.readSample(r.text) : readPromSample(r.text, adapter.metricNames);
  return Object.keys(s ?? {});
}

function isCompleteHardware(h: ProbeOptions['hardware']): h is Hardware {
  return !!h && 'source' in h && h.source !== undefined;
}

function portOf(root: string): number {
  const u = new URL(root);
  return u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
}

function localAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((a) => a.address.toLowerCase());
}
