import { OPENAI_CACHED_TOKENS } from './common.js';
import { llamacpp } from './llamacpp.js';
import { ollama } from './ollama.js';
import { settingWords } from './setting.js';
import type { EngineFacts } from './types.js';
import { vllm } from './vllm.js';

// Any other OpenAI-compatible server: only what the OpenAI API promises, no extensions that a strict server could
// reject. `--engine NAME` forces an engine's extensions when detection cannot see it.
export const generic: EngineFacts = {
  name: 'generic',
  aliases: ['openai'],
  display: 'the server',
  ownedBy: [],
  fingerprintPaths: [],
  extensions: {
    ignoreEos: false,
    minTokens: false,
    streamOptions: true,
    continuousUsage: false,
    maxCompletionTokens: false,
  },
  outputCapFields: () => ['max_tokens'],
  metricNames: {},
  prefixCache: {
    defaultOn: false,
    cachedTokens: { field: OPENAI_CACHED_TOKENS },
    words: `${OPENAI_CACHED_TOKENS} where the server reports it`,
  },
  settings: {
    seats:
      `its limit on requests running at once (vLLM ${vllm.settings.seats}, llama.cpp ${llamacpp.settings.seats.split(' ')[0]}, ` +
      `Ollama ${ollama.settings.seats})`,
    kv: ['the memory it gives the KV cache'],
  },
  limits: {
    seats: 'unknown: the server may run any number at once',
    kv: 'unknown',
    combine: 'unknown',
    layouts: ['pool'],
    overSeats: 'queue',
    unknownFromApi: [],
  },
  errors: {
    contextExceeded: [],
    overloaded: [],
    promptTokensIn: [],
  },
  setting: (want) => settingWords(generic.settings)(want),
  readLaunch: () => undefined,
};
