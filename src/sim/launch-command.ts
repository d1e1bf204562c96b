import type { Profile } from './profile-schema.js';

type Part = string | number | false;

// The command line a real server would have been started with to behave like this profile, in each engine's
// own flags, so the target side's launch-command readers can be tested against the sim (GET /sim/launch).
// A profile's launchCommand, when set, is returned as written.
export function simLaunchCommand(p: Profile, host: string, port: number): string {
  if (p.launchCommand) return p.launchCommand;
  return LAUNCH[p.flavor](p, host, port)
    .filter((x) => x !== false)
    .join(' ');
}

const where = (host: string, port: number): Part[] => ['--host', host, '--port', String(port)];

// Each engine's own flags for the profile's limits; `false` parts are flags the profile leaves off.
const LAUNCH: Record<Profile['flavor'], (p: Profile, host: string, port: number) => Part[]> = {
  vllm: (p, host, port) => [
    'vllm serve',
    p.servedModelName,
    '--max-model-len',
    p.maxModelLen,
    '--max-num-seqs',
    p.maxNumSeqs,
    '--max-num-batched-tokens',
    p.maxBatchedTokens,
    '--block-size',
    p.blockSize,
    '--num-gpu-blocks-override',
    Math.floor(p.kvCapacityTokens / p.blockSize),
    !p.prefixCaching && '--no-enable-prefix-caching',
    p.promptTokensDetails && '--enable-prompt-tokens-details',
    ...where(host, port),
  ],
  sglang: (p, host, port) => [
    'python -m sglang.launch_server --model-path',
    p.servedModelName,
    '--context-length',
    p.maxModelLen,
    '--max-running-requests',
    p.maxNumSeqs,
    '--chunked-prefill-size',
    p.maxBatchedTokens,
    '--max-total-tokens',
    p.kvCapacityTokens,
    p.metrics && '--enable-metrics',
    !p.prefixCaching && '--disable-radix-cache',
    p.promptTokensDetails && '--enable-cache-report',
    ...where(host, port),
  ],
  llamacpp: (p, host, port) => [
    'llama-server -m',
    `${p.servedModelName}.gguf`,
    '-a',
    p.servedModelName,
    '-c',
    p.kvCapacityTokens,
    '-np',
    p.maxNumSeqs,
    p.kvUnified && '--kv-unified',
    '-b',
    p.maxBatchedTokens,
    p.metrics && '--metrics',
    ...where(host, port),
  ],
  tgi: (p, host, port) => [
    'text-generation-launcher --model-id',
    p.servedModelName,
    '--max-total-tokens',
    p.maxModelLen,
    '--max-input-tokens',
    p.maxModelLen - 1,
    '--max-batch-total-tokens',
    p.kvCapacityTokens,
    '--max-concurrent-requests',
    p.maxConcurrentRequests,
    '--max-batch-prefill-tokens',
    p.maxBatchedTokens,
    '--hostname',
    host,
    '--port',
    port,
  ],
  // Ollama reads its limits from the environment of `ollama serve`.
  ollama: (p, host, port) => [
    `OLLAMA_HOST=${host}:${port}`,
    `OLLAMA_NUM_PARALLEL=${p.maxNumSeqs}`,
    `OLLAMA_CONTEXT_LENGTH=${p.maxModelLen}`,
    `OLLAMA_MAX_QUEUE=${p.maxQueue}`,
    'ollama serve',
  ],
  trtllm: (p, host, port) => [
    'trtllm-serve',
    p.servedModelName,
    '--max_seq_len',
    p.maxModelLen,
    '--max_batch_size',
    p.maxNumSeqs,
    '--max_num_tokens',
    p.maxBatchedTokens,
    ...where(host, port),
  ],
};
