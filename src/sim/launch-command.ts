import type { Profile } from './profile-schema.js';

// The command line a real server would have been started with to behave like this profile, in each engine's
// own flags, so the target side's launch-command readers can be tested against the sim (GET /sim/launch).
// A profile's launchCommand, when set, is returned as written.
export function simLaunchCommand(p: Profile, host: string, port: number): string {
  if (p.launchCommand) return p.launchCommand;
  const where = ['--host', host, '--port', String(port)];
  const parts: Array<string | number | false> = (() => {
    switch (p.flavor) {
      case 'vllm':
        return [
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
          ...where,
        ];
      case 'sglang':
        return [
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
          ...where,
        ];
      case 'llamacpp':
        return [
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
          ...where,
        ];
      case 'tgi':
        return [
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
        ];
      case 'ollama':
        // Ollama reads its limits from the environment of `ollama serve`.
        return [
          `OLLAMA_HOST=${host}:${port}`,
          `OLLAMA_NUM_PARALLEL=${p.maxNumSeqs}`,
          `OLLAMA_CONTEXT_LENGTH=${p.maxModelLen}`,
          `OLLAMA_MAX_QUEUE=${p.maxQueue}`,
          'ollama serve',
        ];
      case 'trtllm':
        return [
          'trtllm-serve',
          p.servedModelName,
          '--max_seq_len',
          p.maxModelLen,
          '--max_batch_size',
          p.maxNumSeqs,
          '--max_num_tokens',
          p.maxBatchedTokens,
          ...where,
        ];
    }
  })();
  return parts.filter((x) => x !== false).join(' ');
}
