import { flavorFacts } from '../../engines/index.js';
import type { Flavor } from '../profile-schema.js';
import type { ConnectionClose } from '../conn-close.js';

// Protocol facts per engine (docs/engines.md), as data the stream writer and router read. What the client also
// needs to know (the reasoning field, which request fields the engine honours) comes from src/engines.
export interface FlavorSpec {
  name: Flavor;
  ownedBy: string;
  // First chat chunk: role-only with content "" / null / omitted, role with the first text, or role on every chunk.
  role: 'empty' | 'null' | 'omit' | 'with-first' | 'every';
  roleChunkSuffix: string; // trtllm writes "data: {...} \n\n"
  reasoningField: 'reasoning' | 'reasoning_content' | null; // null: reasoning text stays in content
  finishSeparate: boolean; // finish_reason in its own chunk with an empty delta
  continuousUsage: boolean;
  includeUsageDefault: boolean; // include_usage when stream_options is present but silent on it
  doneAfterError: boolean;
  keepAlive: string | null; // SSE comment sent while a stream is silent (tgi, llamacpp)
  perTokenEvents: boolean; // one event per token even when a step yields several
  emptyChunkId: boolean;
  fingerprint: 'terminal' | 'always' | 'none';
  fingerprintValue: string;
  minTokens: boolean;
  ignoreEos: boolean;
  maxCompletionTokens: boolean;
  completionsDefaultMaxTokens: number | null; // null: up to the context length
  rejectUnknownFields: boolean;
  validatesModel: boolean;
  streamOptionsNeedsStream: boolean;
  cachedTokensInUsage: 'always' | 'flag' | 'never' | 'non-stream'; // non-stream: llama.cpp, always there
  reasoningTokensInUsage: boolean;
  // vLLM with a reasoning parser (PR #45802, 2026): usage.completion_tokens_details.reasoning_tokens
  reasoningTokensDetails: boolean;
  timings: boolean; // llama.cpp: a `timings` object (cache_n, prompt_n, ...) on the last chunk
  headersAtAdmission: boolean; // llama.cpp sends no headers until a slot frees
  firstErrorAsHttp: boolean; // errors before the first token come back as a plain HTTP error
  tooLongInStream: boolean; // tgi: validation errors inside a 200 stream
  truncatesLongPrompts: boolean; // ollama
  // The HTTP server closes a kept-alive connection after N responses without saying so (conn-close.ts).
  closeConnections: ConnectionClose | null;
  keepAliveHeader: string | null; // the Keep-Alive response header, when the server sets its own
}

type FromFacts = 'reasoningField' | 'minTokens' | 'ignoreEos' | 'maxCompletionTokens';

const base: Omit<FlavorSpec, 'name' | 'ownedBy' | FromFacts> = {
  role: 'empty',
  roleChunkSuffix: '\n\n',
  finishSeparate: false,
  continuousUsage: false,
  includeUsageDefault: false,
  doneAfterError: true,
  keepAlive: null,
  perTokenEvents: false,
  emptyChunkId: false,
  fingerprint: 'none',
  fingerprintValue: '',
  completionsDefaultMaxTokens: 16,
  rejectUnknownFields: false,
  validatesModel: false,
  streamOptionsNeedsStream: false,
  cachedTokensInUsage: 'flag',
  reasoningTokensInUsage: false,
  reasoningTokensDetails: false,
  timings: false,
  headersAtAdmission: false,
  firstErrorAsHttp: false,
  tooLongInStream: false,
  truncatesLongPrompts: false,
  closeConnections: null,
  keepAliveHeader: null,
};

const SPECS: Record<Flavor, Omit<FlavorSpec, FromFacts>> = {
  vllm: {
    ...base,
    name: 'vllm',
    ownedBy: 'vllm',
    continuousUsage: true,
    fingerprint: 'terminal',
    fingerprintValue: 'fp_vllm_sim',
    validatesModel: true,
    streamOptionsNeedsStream: true,
    reasoningTokensDetails: true,
  },
  sglang: {
    ...base,
    name: 'sglang',
    ownedBy: 'sglang',
    finishSeparate: true,
    continuousUsage: true,
    reasoningTokensInUsage: true,
  },
  llamacpp: {
    ...base,
    name: 'llamacpp',
    ownedBy: 'llamacpp',
    role: 'null',
    finishSeparate: true,
    doneAfterError: false,
    keepAlive: ': ping\n\n',
    perTokenEvents: true,
    fingerprint: 'always',
    fingerprintValue: 'b7000-sim',
    completionsDefaultMaxTokens: null,
    headersAtAdmission: true,
    firstErrorAsHttp: true,
    timings: true,
    cachedTokensInUsage: 'non-stream',
    // llama-server b10470: its cpp-httplib closes after the 2nd response (48 of 50 tries), FIN 0.1-0.5 ms after
    // the last chunk, whatever its Keep-Alive header says (docs/engines.md "HTTP stacks")
    closeConnections: { afterResponses: 2 },
    keepAliveHeader: 'timeout=5, max=100',
  },
  tgi: {
    ...base,
    name: 'tgi',
    ownedBy: 'tgi',
    role: 'every',
    keepAlive: ':\n\n',
    perTokenEvents: true,
    emptyChunkId: true,
    completionsDefaultMaxTokens: null,
    cachedTokensInUsage: 'never',
    tooLongInStream: true,
  },
  ollama: {
    ...base,
    name: 'ollama',
    ownedBy: 'library',
    role: 'with-first',
    finishSeparate: true,
    doneAfterError: false,
    fingerprint: 'always',
    fingerprintValue: 'fp_ollama',
    completionsDefaultMaxTokens: null,
    validatesModel: true,
    cachedTokensInUsage: 'never',
    truncatesLongPrompts: true,
  },
  trtllm: {
    ...base,
    name: 'trtllm',
    ownedBy: 'tensorrt_llm',
    role: 'omit',
    roleChunkSuffix: ' \n\n',
    continuousUsage: true,
    includeUsageDefault: true,
    doneAfterError: false,
    completionsDefaultMaxTokens: null,
    rejectUnknownFields: true,
    streamOptionsNeedsStream: true,
    cachedTokensInUsage: 'always',
  },
};

export const FLAVOR_SPECS = Object.fromEntries(
  Object.entries(SPECS).map(([f, spec]) => {
    const e = flavorFacts(f as Flavor);
    return [
      f,
      {
        ...spec,
        reasoningField: (e.reasoningField ?? null) as FlavorSpec['reasoningField'],
        minTokens: e.extensions.minTokens,
        ignoreEos: e.extensions.ignoreEos,
        maxCompletionTokens: e.extensions.maxCompletionTokens,
      },
    ];
  }),
) as Record<Flavor, FlavorSpec>;
