import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveApiKey } from '../../src/cli/api-key.js';
import { isBenchError } from '../../src/errors.js';
import { redactSecrets } from '../../src/secrets.js';

describe('resolveApiKey: flag > file > OPENAI_API_KEY > LLM_BENCH_API_KEY', () => {
  const dir = mkdtempSync(join(tmpdir(), 'key-'));
  const file = join(dir, 'key');
  writeFileSync(file, '\n  sk-from-file-123  \nsecond line\n');
  const env = { OPENAI_API_KEY: 'sk-from-openai-env', LLM_BENCH_API_KEY: 'sk-from-bench-env' };

  it('follows the precedence', () => {
    expect(resolveApiKey({ apiKey: 'sk-flag-0001', apiKeyFile: file, env })).toBe('sk-flag-0001');
    expect(resolveApiKey({ apiKeyFile: file, env })).toBe('sk-from-file-123');
    expect(resolveApiKey({ env })).toBe('sk-from-openai-env');
    expect(resolveApiKey({ env: { LLM_BENCH_API_KEY: 'sk-from-bench-env' } })).toBe('sk-from-bench-env');
    expect(resolveApiKey({ env: {} })).toBeUndefined();
  });

  it('registers the key so every output path scrubs it', () => {
    resolveApiKey({ apiKey: 'sk-registered-777', env: {} });
    expect(redactSecrets('Bearer sk-registered-777')).toBe('Bearer <redacted>');
  });

  it("a missing or empty key file is the flag's bad value, naming the file, not the key", () => {
    for (const f of [join(dir, 'absent'), (writeFileSync(join(dir, 'empty'), '\n'), join(dir, 'empty'))]) {
      try {
        resolveApiKey({ apiKeyFile: f, env: {} });
        expect.unreachable();
      } catch (e) {
        expect(isBenchError(e) && e.code).toBe('CONFIG_INVALID');
        expect((e as Error).message).toContain(f);
      }
    }
  });
});
