import { readFileSync } from 'node:fs';
import { BenchError } from '../errors.js';
import { registerSecret } from '../secrets.js';

// The API key comes from --api-key, --api-key-file, LLM_BENCH_API_KEY or OPENAI_API_KEY (first found), never
// from a config file; it is registered as a secret at once so every output path can scrub it.
export function resolveApiKey(
  flags: { apiKey?: string; apiKeyFile?: string },
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  let key: string | undefined = flags.apiKey;
  if (key === undefined && flags.apiKeyFile !== undefined) {
    try {
      key = readFileSync(flags.apiKeyFile, 'utf8').trim();
    } catch (e) {
      throw new BenchError(
        'CONFIG_INVALID',
        `cannot read --api-key-file ${flags.apiKeyFile}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    if (key === '') throw new BenchError('CONFIG_INVALID', `--api-key-file ${flags.apiKeyFile} is empty`);
  }
  key ??= env.LLM_BENCH_API_KEY || env.OPENAI_API_KEY || undefined;
  registerSecret(key);
  return key;
}
