import { describe, expect, it } from 'vitest';
import { applyLinks, checkLinks, kvUnified, parseLinkVars } from '../../src/sweep/link-vars.js';
import type { ParamSet } from '../../src/sweep/params.js';
import { errorOf, paramSet } from './helpers.js';

const set = (params: ParamSet['params'], env: ParamSet['env'] = {}) => paramSet(params, env);

describe('--link-vars', () => {
  it('reads PARAM=TARGET pairs and PARAM/DIVISOR', () => {
    expect(parseLinkVars('max_num_seqs=concurrency, max_model_len=max-model-len')).toEqual([
      { param: 'max_num_seqs', target: 'concurrency' },
      { param: 'max_model_len', target: 'max-model-len' },
    ]);
    expect(parseLinkVars('-np=concurrency,-c/-np=max_model_len')).toEqual([
      { param: '-np', target: 'concurrency' },
      { param: '-c', divisor: '-np', target: 'max-model-len' },
    ]);
    expect(errorOf(() => parseLinkVars('np=threads'))).toBe(
      'CONFIG_INVALID: --link-vars: cannot read "np=threads".',
    );
    expect(errorOf(() => parseLinkVars('a=concurrency,b=concurrency'))).toBe(
      'CONFIG_INVALID: --link-vars sets concurrency twice.',
    );
  });

  it("vLLM's max_num_seqs sets the top concurrency level, max_model_len bounds the contexts", () => {
    const links = parseLinkVars('max_num_seqs=concurrency,max_model_len=max-model-len');
    const r = applyLinks(links, set({ max_num_seqs: 48, max_model_len: '32K' }), {});
    expect(r.concurrency).toEqual([1, 2, 4, 8, 16, 32, 48]);
    expect(r.maxModelLen).toBe(32768);
    // the run's own list and max model length are kept where tighter
    const tight = applyLinks(links, set({ max_num_seqs: 16, max_model_len: 65536 }), {
      concurrency: [1, 4, 64],
      maxModelLen: 16384,
    });
    expect(tight.concurrency).toEqual([1, 4, 16]);
    expect(tight.maxModelLen).toBe(16384);
  });

  it("llama.cpp's -c is split over -np slots, unless --kv-unified", () => {
    const links = parseLinkVars('np=concurrency,c/np=max-model-len');
    const split = applyLinks(links, set({ '-np': 4, '-c': 131072 }), {});
    expect(split.concurrency).toEqual([1, 2, 4]);
    expect(split.maxModelLen).toBe(32768);
    expect(split.notes).toEqual([
      'np=4: concurrency 1,2,4',
      'c/np=32768: contexts up to a max model length of 32768',
    ]);
    const unified = set({ '-np': 4, '-c': 131072, '--kv-unified': true });
    expect(kvUnified(unified)).toBe(true);
    expect(applyLinks(links, unified, {}).maxModelLen).toBe(131072);
    expect(kvUnified(set({ kvu: 'false' }))).toBe(false);
    // llama.cpp's padding, as the server and the sim size a slot: GGML_PAD(8192 / 3, 256) = 2,816, not 2,730
    expect(applyLinks(links, set({ '-np': 3, '-c': 8192 }), {}).maxModelLen).toBe(2816);
    expect(applyLinks(links, set({ '-np': 3, '-c': 8000, '--kv-unified': true }), {}).maxModelLen).toBe(8192);
  });

  it('an environment variable links too (Ollama), and a configuration without the flag is left alone', () => {
    const links = parseLinkVars('OLLAMA_NUM_PARALLEL=concurrency');
    expect(applyLinks(links, set({}, { OLLAMA_NUM_PARALLEL: '2' }), {}).concurrency).toEqual([1, 2]);
    expect(applyLinks(links, set({ np: 2 }), {}).concurrency).toBeUndefined();
  });

  it('refuses a value that is not a count, and a flag no configuration sets', () => {
    const links = parseLinkVars('np=concurrency');
    expect(errorOf(() => applyLinks(links, set({ np: 'auto' }), {}))).toBe(
      'CONFIG_INVALID: --link-vars: np is "auto" in the configuration "np=auto", not a positive whole number.',
    );
    expect(errorOf(() => checkLinks(parseLinkVars('n_parallel=concurrency'), [set({ np: 2 })]))).toBe(
      'CONFIG_INVALID: --link-vars names n_parallel, which no configuration in --serve-params sets.',
    );
  });
});
