import type { Engine, Hardware, ServerSample } from '../results/schema.js';
import type { HttpResult } from '../client/http.js';
import type { EngineFacts, Extensions, KvLayout, MetricNames } from '../engines/index.js';

export { ENGINE_NAMES, type EngineName, type Extensions, type MetricNames } from '../engines/index.js';

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
  seats?: number; // requests the server runs at once, as it or its launch command states it
  seatsSource?: string;
  kvLayout?: KvLayout; // where the engine may lay its KV out more than one way (llama.cpp) and it is known
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
  seats?: number;
  seatsSource?: string;
  kvLayout?: KvLayout;
  metricsAvailable: boolean;
  metricsPath?: string;
  tokenize?: TargetInfo['tokenize'];
  tokenizeCoversTemplate?: boolean;
  tokenizeMethod?: string;
  warnings?: string[];
}

// An engine's facts (src/engines) with the I/O that finds them on a server: fingerprint and discovery.
export interface EngineAdapter extends Pick<
  EngineFacts,
  'name' | 'repository' | 'reasoningField' | 'extensions' | 'metricNames' | 'ownedBy' | 'fingerprintPaths'
> {
  facts: EngineFacts;
  cachedTokensSource: string;
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
