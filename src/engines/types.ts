// What the tool knows about one engine, as data and small pure functions (docs/engines.md; docs/architecture.md
// "Engine facts"). One file per engine declares an EngineFacts; every other folder reads it from the registry
// (index.ts), so a flag name, an error text or an alias is written once.

export const FLAVORS = ['vllm', 'sglang', 'llamacpp', 'tgi', 'ollama', 'trtllm'] as const;
export const ENGINE_NAMES = [...FLAVORS, 'generic'] as const;
export type Flavor = (typeof FLAVORS)[number]; // an engine the sim speaks as (sim --flavor)
export type EngineName = (typeof ENGINE_NAMES)[number];
export type Api = 'chat' | 'completions';

// The request fields beyond the OpenAI API the client sends this engine.
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

// Whether the engine reuses an earlier prompt's KV, how to turn that off, and where a request's cached prompt
// tokens are reported.
export interface PrefixCacheFacts {
  defaultOn: boolean;
  off?: string; // the flag or setting that turns it off
  cachedTokens?: { field: string; needs?: string }; // per request; `needs`: the server flag it takes
  words: string; // where cached prompt-token counts show, in words (probe output)
}

// The launch settings that move the server's limits, as the engine's own documentation names them: what the answer
// tells a reader to change (docs/method.md "Why the limit is there").
export interface EngineSettings {
  seats: string; // requests the engine runs at once
  seatsNote?: string;
  kv: string[]; // what sizes the KV cache
  chunk?: string; // how much prefill one step may take (chunked prefill)
  admission?: string; // requests beyond it are refused, not queued
}

// How KV memory is laid out: one pool the scheduler shares and preempts from (vLLM, SGLang, TRT-LLM); llama.cpp
// slots, each with its own share (split) or addressing one pool (unified); one context per parallel request
// (Ollama); a token budget a batch is admitted under (TGI).
export const KV_LAYOUTS = ['pool', 'split', 'unified', 'per-request', 'token-budget'] as const;
export type KvLayout = (typeof KV_LAYOUTS)[number];

// Layouts where each running request holds a share of the KV of its own (llama.cpp split slots, Ollama's contexts):
// the pool never runs short, so N requests beyond the seats wait for one (the plan runs them: Requests queued), and a
// request longer than its share is refused up front (Too long). In the others the running requests share one pool.
export const ownKvShare = (layout: KvLayout | undefined): boolean =>
  layout === 'split' || layout === 'per-request';

// llama.cpp's KV after its own rounding (llama-context.cpp, server-context.cpp).
export interface LlamacppSlots {
  nCtx: number; // the pool: -c padded to 256 (split: slots x nCtxSeq)
  nCtxSeq: number; // KV one sequence may address (split: its own share; unified: the pool)
  nCtxSlot: number; // nCtxSeq capped at the training context: what /props and /slots show
  nCtxTrain: number;
  slots: number;
  unified: boolean;
}

// What bounds requests on a server: numbers where the evidence states them, undefined where it does not.
export interface ServingLimits {
  seats?: number; // requests running at once; undefined: not bounded by a count (TGI) or not stated
  kvTokens?: number; // the KV pool in tokens
  contextLimit?: number; // tokens one request may hold (prompt + output): max model length, or the slot
  layout?: KvLayout;
  onKvFull?: 'preempt' | 'fail-all' | 'never'; // what a full pool does to the requests running
  admission?: number; // TGI: requests in flight beyond it get 429; Ollama: waiting beyond it get 503
  slots?: LlamacppSlots;
}

// What a launch command states, with the flags it came from in words.
export interface LaunchLimits extends ServingLimits {
  source: string; // "launch command -c 32768 -np 4: 4 slots × 8192"
  seatsSource?: string; // "launch command -np 4"
}

// The serving-limit model in words, and what the API alone leaves unknown (docs/engines.md "Serving limits").
export interface LimitModel {
  seats: string;
  kv: string;
  combine: string;
  layouts: readonly KvLayout[]; // the layouts the engine can have
  overSeats: 'queue' | 'refuse'; // what a request beyond the seats meets
  unknownFromApi: ReadonlyArray<'kv' | 'layout'>; // llama.cpp: split or unified; Ollama: its KV
  tellApart?: string; // what would tell the unknown, in words ("the launch command (--launch-command) or --kv-capacity")
}

// The engine's own words for a refusal, as lower-case substrings of its error message.
export interface ErrorTexts {
  contextExceeded: readonly string[]; // the prompt (plus max_tokens) does not fit, or the pool filled
  contextExceededTypes?: readonly string[]; // the error body's `type` that says it (llama.cpp)
  poolFull?: string; // the message every running request gets when a shared pool fills (llama.cpp unified)
  overloaded: readonly string[]; // queue full or overloaded: the request was refused, not queued
  promptTokensIn: readonly RegExp[]; // where its too-long message quotes the prompt's length (group 1)
  // The engine's message for a prompt of m tokens (with max_tokens x) over a context of n: what the sim answers.
  tooLong?(n: number, m: number, x: number | undefined): string;
  overloadMessage?: string; // its overload message, whole (sim)
}

// The fields of a sim profile its launch command is written from (src/sim/profile-schema.ts Profile has them all).
export interface SimFlags {
  servedModelName: string;
  maxModelLen: number;
  kvCapacityTokens: number;
  maxNumSeqs: number;
  maxBatchedTokens: number;
  blockSize: number;
  prefixCaching: boolean;
  promptTokensDetails: boolean;
  metrics: boolean;
  kvUnified: boolean;
  maxConcurrentRequests: number;
  maxQueue: number;
}

export type LaunchPart = string | number | false; // false: a flag the profile leaves off

// How a sim profile maps onto the engine's flags (docs/sim.md "llama.cpp KV"), and the serving limits the sim
// runs under: those the launch command states, with the profile's own figure where the flags do not size it.
export interface SimFacts {
  launch(p: SimFlags, host: string, port: number): LaunchPart[];
  limits(
    p: SimFlags,
  ): Required<Pick<ServingLimits, 'seats' | 'kvTokens' | 'contextLimit' | 'onKvFull'>> & ServingLimits;
}

export interface EngineFacts {
  name: EngineName;
  aliases: readonly string[]; // what --engine also takes
  display: string; // as people write it
  repository?: string;
  ownedBy: readonly string[]; // `owned_by` values in /v1/models that name it
  fingerprintPaths: readonly string[]; // the GETs its fingerprint reads (none generates)
  extensions: Extensions;
  outputCapFields(api: Api): string[]; // always at least one
  reasoningField?: string;
  metricNames: MetricNames;
  prefixCache: PrefixCacheFacts;
  settings: EngineSettings;
  limits: LimitModel;
  errors: ErrorTexts;
  // The settings that give `seats` requests at once and a KV pool of `kvTokens` (llama.cpp: -c), in the engine's own
  // words: "-np 8 -c 65,536", "--max-num-seqs 8", "a KV cache of 33,536 tokens (--gpu-memory-utilization)".
  setting(want: { seats?: number; kvTokens?: number }): string;
  // The serving limits a launch command states; undefined when it is not this engine's server or states none.
  readLaunch(words: readonly string[], o: { nCtxTrain?: number }): LaunchLimits | undefined;
  sim?: SimFacts; // every flavor has one; generic has none
}
