import { readFileSync } from 'node:fs';
import { BenchError } from '../errors.js';
import { fsError } from '../fs-errors.js';
import { registerSecret } from '../secrets.js';

export interface ApiKeySources {
  apiKey?: string; // --api-key
  apiKeyFile?: string; // --api-key-file
  env?: NodeJS.ProcessEnv;
}

// Precedence: flag > file > OPENAI_API_KEY > LLM_BENCH_API_KEY. Never read from a config file.
// Every key found is registered so no output path can print it.
export function resolveApiKey(src: ApiKeySources): string | undefined {
  const env = src.env ?? process.env;
  let key: string | undefined;
  if (src.apiKey !== undefined && src.apiKey !== '') key = src.apiKey;
  else if (src.apiKeyFile !== undefined) key = readKeyFile(src.apiKeyFile);
  else key = nonEmpty(env.OPENAI_API_KEY) ?? nonEmpty(env.LLM_BENCH_API_KEY);
  key = key?.trim();
  if (key) registerSecret(key);
  return key || undefined;
}

function readKeyFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    // A file a flag names but cannot be read: a bad flag value, as for --config (docs/cli.md "Exit codes and errors").
    throw fsError(
      'CONFIG_INVALID',
      `cannot read --api-key-file ${path}`,
      e,
      'Give a file that holds only the key.',
    );
  }
  const key = text
    .split(/\r?\n/)
    .find((l) => l.trim() !== '')
    ?.trim();
  if (!key)
    throw new BenchError('CONFIG_INVALID', `--api-key-file ${path} is empty.`, {
      hint: 'Put the key on its first line.',
    });
  return key;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v && v.trim() ? v : undefined;
}
