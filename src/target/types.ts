import type { Engine, Hardware, ServerSample } from '../results/schema.js';
import type { HttpResult } from '../client/http.js';
import { ENGINE_NAMES } from '../engine-names.js';

export { ENGINE_NAMES };
export type EngineName = (typeof ENGINE_NAMES)[number];

export interface Extensions {
  ignoreEos: boolean;
  minTokens: boolean;
  streamOptions: boolean;
  continuousUsage: boolean;
  maxCompletionTokens: boolean;
}

// Prometheus names per quantity; the first one present wins (old and new spellings).
export interface MetricNames {
  running?: string[];
  waiting?: string[];
  kvUsage?: string[];
  prefixHits?: string[];
  prefixQueries?: string[];
  specDrafts?: string[];
  specDraftTokens?: string[];
  specAccepted?: string[];
  specAcceptLength?: string[]; // a gauge (SGLang) rather than counters
  promptTokens?: string[];
  generationTokens?: string[];
}

// How sure a KV capacity is: defined with the capacity rule (src/plan/capacity.ts).
import type { KvBound } from '../plan/capacity.js';
export { KV_BOUNDS, type KvBound } from '../plan/capacity.js';

export interface TargetInfo {
  engine: Engine;
  models: string[];
  model: string;
  maxModelLen?: number;
  maxModelLenSource?: string;
  kvCapacityTokens?: number;
  kvCapacitySource?: string;
  kvCapacityBound?: KvBound;
  metricsAvailable: boolean;
  metricsPath?: string; // relative to the server root, e.g. '/metrics'
  metricNames?: MetricNames;
  metricsPresent?: string[]; // ServerSample fields the probe-time scrape carried (spec counters only when configured)
  reasoningField?: string;
  cachedTokensSource?: string; // where cached prompt-token counts show, in words
  extensions: Extensions;
  // Counts the prompt the server sees for `text` on `api`. For chat it is the rendered conversation (template
  // tokens included) when tokenizeCoversTemplate, else the content alone (the prompt factory adds the
  // template's tokens, learnt from one probe request).
  tokenize?: (text: string, api: 'chat' | 'completions') => Promise<number | undefined>;
  tokenizeAvailable?: boolean;
  tokenizeCoversTemplate?: boolean;
  tokenizeMethod?: string; // how a chat prompt is counted, in words (probe output)
  hardware: Hardware;
  simProfile?: SimProfileHardware; // the simulated engine's profile, as it serves it (GET /sim/hardware)
  launchCommand?: string; // redacted
  warnings?: string[];
}

/** A sim profile's name and the GPUs it describes (docs/sim.md "Profiles"). */
export interface SimProfileHardware {
  name: string;
  hardware: { gpuName?: string; gpuCount?: number; gpuMemoryGb?: number };
}

export interface ModelEntry {
  id: string;
  ownedBy?: string;
  raw: Record<string, unknown>;
}

export interface ModelsListing {
  models: ModelEntry[];
  shape: 'openai-list' | 'bare-array';
}

// One probe's view of a server: memoised GETs so fingerprinting and discovery share answers.
export interface ProbeContext {
  root: string; // server root without /v1
  apiKey?: string;
  timeoutMs: number;
  get(path: string): Promise<HttpResult>;
  post(path: string, body: unknown, timeoutMs?: number): Promise<HttpResult>;
}

export interface Discovery {
  version?: string;
  commit?: string;
  build?: string;
  quantization?: string;
  backend?: string;
  detectedBy?: string;
  maxModelLen?: number;
  maxModelLenSource?: string;
  kvCapacityTokens?: number;
  kvCapacitySource?: string;
  kvCapacityBound?: KvBound; // absent: exact (the engine's own report)
  metricsAvailable: boolean;
  metricsPath?: string;
  tokenize?: TargetInfo['tokenize'];
  tokenizeCoversTemplate?: boolean;
  tokenizeMethod?: string;
  warnings?: string[];
}

export interface EngineAdapter {
  name: EngineName;
  repository?: string;
  reasoningField?: string;
  cachedTokensSource: string;
  extensions: Extensions;
  metricNames: MetricNames;
  ownedBy?: string[];
  fingerprintPaths: string[]; // GETs its fingerprint reads (fetched in parallel up front) // `owned_by` values in /v1/models that name this engine (checked before any fingerprint)
  // Evidence (an endpoint name) that the server is this engine; only cheap GETs, never a generation.
  fingerprint(ctx: ProbeContext, listing: ModelsListing): Promise<string | undefined>;
  discover(ctx: ProbeContext, model: ModelEntry, listing: ModelsListing): Promise<Discovery>;
  // The model to use when --model is not given and the list holds several (Ollama: the loaded one).
  preferredModel?(ctx: ProbeContext, listing: ModelsListing): Promise<string | undefined>;
  // The output-cap fields this engine reads for the api (always at least one).
  outputCapFields(api: 'chat' | 'completions'): string[];
  // Parses a metrics response body into a partial sample; default is Prometheus with metricNames.
  readSample?(body: string): Partial<ServerSample> | undefined;
}
