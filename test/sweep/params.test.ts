import { describe, expect, it } from 'vitest';
import { expandParams, product } from '../../src/sweep/params.js';
import { expandBench, folderName, layoutSweep } from '../../src/sweep/configs.js';
import { errorOf } from './helpers.js';

const names = (data: unknown) => expandParams(data, 'p.yaml', { env: true }).map((s) => s.name);

describe('serve params expansion', () => {
  it('expands one mapping as a product, the first key varying slowest', () => {
    const sets = expandParams({ np: [2, 4, 8], c: ['64K', '128K'] }, 'p.yaml');
    expect(sets.map((s) => s.name)).toEqual([
      'np=2 c=64K',
      'np=2 c=128K',
      'np=4 c=64K',
      'np=4 c=128K',
      'np=8 c=64K',
      'np=8 c=128K',
    ]);
    expect(sets[3]!.params).toEqual({ np: 4, c: '128K' });
  });

  it('takes a list of configurations, each expanded on its own', () => {
    expect(names([{ max_num_seqs: 64 }, { max_num_seqs: [128, 256], enforce_eager: true }])).toEqual([
      'max_num_seqs=64',
      'max_num_seqs=128 enforce_eager=true',
      'max_num_seqs=256 enforce_eager=true',
    ]);
  });

  it('names named configurations by their name, with only the varying values after it', () => {
    const sets = expandParams({ small: { np: 4, c: 32768 }, big: { np: [8, 16], c: 131072 } }, 'p.yaml', {
      env: true,
    });
    expect(sets.map((s) => s.name)).toEqual(['small', 'big np=8', 'big np=16']);
    expect(sets[2]!.params).toEqual({ np: 16, c: 131072 });
  });

  it('expands env: too, and reads env: alone as one configuration', () => {
    const sets = expandParams({ env: { OLLAMA_NUM_PARALLEL: [1, 4] } }, 'p.yaml', { env: true });
    expect(sets.map((s) => [s.name, s.env, s.params])).toEqual([
      ['OLLAMA_NUM_PARALLEL=1', { OLLAMA_NUM_PARALLEL: '1' }, {}],
      ['OLLAMA_NUM_PARALLEL=4', { OLLAMA_NUM_PARALLEL: '4' }, {}],
    ]);
  });

  it('says where a bad value is, in one line', () => {
    expect(errorOf(() => names([{ np: 4 }, { np: { a: 1 } }]))).toBe(
      'CONFIG_INVALID: p.yaml: [1].np: expected a number, text or true/false, or a list of them.',
    );
    expect(errorOf(() => names({ a: { env: { 'BAD-NAME': 1 } } }))).toMatch(
      /^CONFIG_INVALID: p\.yaml: a\.env\.BAD-NAME: expected environment variable names/,
    );
    expect(errorOf(() => names([]))).toBe('CONFIG_INVALID: p.yaml: no configuration in the file.');
    expect(errorOf(() => names([{ np: 4 }, { np: 4 }]))).toBe(
      'CONFIG_INVALID: p.yaml: the configuration "np=4" appears twice.',
    );
    expect(errorOf(() => names(7))).toMatch(/^CONFIG_INVALID: p\.yaml: expected a mapping/);
  });

  it('product of no axes is one empty combination', () => {
    expect(product([])).toEqual([[]]);
    expect(product([['a', [1, 2]] as const, ['b', [3]] as const])).toEqual([
      [
        ['a', 1],
        ['b', 3],
      ],
      [
        ['a', 2],
        ['b', 3],
      ],
    ]);
  });
});

describe('bench params', () => {
  it('reads run options by any spelling, a list option as one value, a list of lists as several', () => {
    const sets = expandBench({ 'max-output': [256, '1K'], contexts: [['8K', '16K'], ['32K']] }, 'b.yaml');
    expect(sets.map((s) => s.name)).toEqual([
      'max-output=256 contexts=8K,16K',
      'max-output=256 contexts=32K',
      'max-output=1K contexts=8K,16K',
      'max-output=1K contexts=32K',
    ]);
    expect(sets[2]!.values).toEqual({ maxOutput: 1024, contexts: [8192, 16384] });
    expect(expandBench({ contexts: ['8K', '16K'] }, 'b.yaml')[0]!.values).toEqual({
      contexts: [8192, 16384],
    });
  });

  it('refuses what the sweep decides itself, and bad values, naming the key', () => {
    expect(errorOf(() => expandBench({ baseUrl: 'http://x' }, 'b.yaml'))).toMatch(
      /^CONFIG_INVALID: b\.yaml: baseUrl: not a run option a bench configuration can set/,
    );
    expect(errorOf(() => expandBench({ duraton: 3 }, 'b.yaml'))).toMatch(/did you mean duration\?/);
    expect(errorOf(() => expandBench({ duration: 'soon' }, 'b.yaml'))).toBe(
      'CONFIG_INVALID: b.yaml: configuration "duration=soon": duration: expected a duration like 30, 30s or 2m.',
    );
  });
});

describe('layout', () => {
  it('gives each server a folder and each bench configuration a run under it', () => {
    const serve = expandParams({ np: [2, 4] }, 'p.yaml');
    const bench = expandBench({ maxOutput: [256, 512] }, 'b.yaml');
    const l = layoutSweep(serve, bench, [], {});
    expect(l.servers.map((s) => [s.key, s.log])).toEqual([
      ['01-np=2', '01-np=2/server.log'],
      ['02-np=4', '02-np=4/server.log'],
    ]);
    expect(l.runs.map((r) => [r.key, r.name, r.server])).toEqual([
      ['01-np=2/01-maxOutput=256', 'np=2 · maxOutput=256', '01-np=2'],
      ['01-np=2/02-maxOutput=512', 'np=2 · maxOutput=512', '01-np=2'],
      ['02-np=4/01-maxOutput=256', 'np=4 · maxOutput=256', '02-np=4'],
      ['02-np=4/02-maxOutput=512', 'np=4 · maxOutput=512', '02-np=4'],
    ]);
    expect(folderName(11, 'a b/c:"d"')).toBe('12-a_b_c_d');
    expect(folderName(0, '///')).toBe('01-default');
  });
});
