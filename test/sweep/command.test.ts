import { describe, expect, it } from 'vitest';
import { buildCommand, checkTemplate, redactTemplate } from '../../src/sweep/command.js';
import type { ParamSet } from '../../src/sweep/params.js';
import { errorOf, paramSet } from './helpers.js';
import { redactSecrets } from '../../src/secrets.js';

const set = (params: ParamSet['params'], env: ParamSet['env'] = {}) => paramSet(params, env, 'c1');

describe('server commands', () => {
  it('fills placeholders, appends the other flags as vLLM sweep does', () => {
    const c = buildCommand(
      'vllm serve m --port {port} --max-num-seqs {max_num_seqs}',
      set({
        max_num_seqs: 64,
        max_num_batched_tokens: 8192,
        enforce_eager: true,
        enable_chunked_prefill: false,
        '-tp': 2,
      }),
      8123,
      undefined,
    );
    expect(c.command).toBe(
      'vllm serve m --port 8123 --max-num-seqs 64 --max-num-batched-tokens 8192 --enforce-eager -tp 2',
    );
    expect(c.shown).toBe(c.command);
  });

  it('quotes values for the shell, matches {max-num-seqs} to max_num_seqs, puts env first in what it shows', () => {
    const c = buildCommand(
      'server --port {port} --name {served} --seqs {max-num-seqs}',
      set({ served: "it's a model", max_num_seqs: 4 }, { OLLAMA_HOST: '127.0.0.1:{port}' }),
      9000,
      undefined,
    );
    expect(c.command).toBe(`server --port 9000 --name 'it'\\''s a model' --seqs 4`);
    expect(c.env).toEqual({ OLLAMA_HOST: '127.0.0.1:9000' });
    expect(c.shown).toBe(`OLLAMA_HOST=127.0.0.1:9000 ${c.command}`);
  });

  it('redacts secrets in what it shows and registers them, so a server log echoing them is scrubbed', () => {
    const c = buildCommand(
      'vllm serve m --port {port} --api-key {api_key}',
      set({ hf_token: 'tok-secret-flag-value' }, { HF_TOKEN: 'hf-env-secret-1234' }),
      1,
      'key-from-flag-5678',
    );
    expect(c.command).toContain('--api-key key-from-flag-5678');
    expect(c.shown).toBe(
      'HF_TOKEN=<redacted> vllm serve m --port 1 --api-key <redacted> --hf-token <redacted>',
    );
    const log =
      "INFO non-default args: {'api_key': 'key-from-flag-5678', 'hf_token': 'tok-secret-flag-value'} hf-env-secret-1234";
    expect(redactSecrets(log)).toBe(
      "INFO non-default args: {'api_key': '<redacted>', 'hf_token': '<redacted>'} <redacted>",
    );
  });

  it('keeps placeholders in the stored template, where a secret would be redacted', () => {
    expect(
      redactTemplate('vllm serve m --port {port} --api-key {api_key} --hf-token hf_abcdefghijklmnopqrstu'),
    ).toBe('vllm serve m --port {port} --api-key {api_key} --hf-token <redacted>');
    expect(redactTemplate("s --api-key='{api_key}' --token=abc123secret")).toBe(
      "s --api-key='{api_key}' --token=<redacted>",
    );
  });

  it('checks the template against every configuration before anything starts', () => {
    expect(
      errorOf(() => checkTemplate('s --port {port} -np {np}', [set({ np: 1 }), { ...set({}), name: 'c2' }])),
    ).toBe('CONFIG_INVALID: --serve-cmd uses {np}, which the configuration "c2" does not set.');
    expect(errorOf(() => checkTemplate('s -np {np}', [set({ np: 1 })]))).toBe(
      'USAGE: --serve-cmd has no {port}: the sweep picks a free port per server.',
    );
    expect(errorOf(() => checkTemplate('ollama serve', [set({}, { OLLAMA_HOST: '127.0.0.1:{port}' })]))).toBe(
      'no error',
    );
    // JSON in a flag is not a placeholder
    expect(errorOf(() => checkTemplate(`s --port {port} --spec '{"k": 1}'`, [set({})]))).toBe('no error');
    expect(errorOf(() => buildCommand('s --port {port} --key {api_key}', set({}), 1, undefined))).toBe(
      'USAGE: --serve-cmd uses {api_key}, and no API key is given.',
    );
  });
});
