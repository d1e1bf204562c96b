import { describe, expect, it } from 'vitest';
import { BenchError } from '../../src/errors.js';
import { parseWorkload, readWorkload, workloadLabel } from '../../src/workloads/index.js';

describe('workload specs', () => {
  it('reads each kind from its string, token counts as the tool writes them (8K = 8,192)', () => {
    expect(readWorkload('fixed')).toEqual({ kind: 'fixed' });
    expect(readWorkload('lengths:in=normal(8K,2K),out=uniform(128,1K)')).toEqual({
      kind: 'lengths',
      in: { dist: 'normal', mean: 8192, sd: 2048 },
      out: { dist: 'uniform', min: 128, max: 1024 },
    });
    expect(readWorkload('lengths:in=lognormal(1K,0.5)')).toEqual({
      kind: 'lengths',
      in: { dist: 'lognormal', median: 1024, sigma: 0.5 },
    });
    expect(readWorkload('lengths:in=512,out=const(64)')).toEqual({
      kind: 'lengths',
      in: { dist: 'const', value: 512 },
      out: { dist: 'const', value: 64 },
    });
    expect(readWorkload('lengths:file=data/sharegpt.jsonl')).toEqual({
      kind: 'lengths',
      file: 'data/sharegpt.jsonl',
    });
    expect(readWorkload('shared-prefix:prefixes=4,prefix=2K,suffix=256')).toEqual({
      kind: 'shared-prefix',
      prefixes: 4,
      prefix: 2048,
      suffix: 256,
    });
    expect(readWorkload('multi-turn:turns=3,think=exp(2s),system=1K,message=256,cap=32K')).toEqual({
      kind: 'multi-turn',
      turns: 3,
      think: { dist: 'exp', meanMs: 2000 },
      system: 1024,
      message: 256,
      cap: 32_768,
    });
    expect(readWorkload('mooncake:file=trace.jsonl')).toEqual({
      kind: 'mooncake',
      file: 'trace.jsonl',
      block: 512,
    });
  });

  it('fills defaults, and the YAML object reads as its string does', () => {
    expect(readWorkload('multi-turn')).toEqual({
      kind: 'multi-turn',
      turns: 5,
      think: { dist: 'const', ms: 0 },
      system: 0,
      message: 512,
    });
    expect(readWorkload({ kind: 'shared-prefix', prefix: '2K', suffix: 256 })).toEqual(
      readWorkload('shared-prefix:prefixes=1,prefix=2K,suffix=256'),
    );
    expect(readWorkload({ kind: 'multi-turn', think: '500ms', system: 0, message: 1024 })).toEqual(
      readWorkload('multi-turn:think=500ms,system=0,message=1K'),
    );
    expect(readWorkload({ kind: 'mooncake', file: 't.jsonl', block: 16 })).toEqual({
      kind: 'mooncake',
      file: 't.jsonl',
      block: 16,
    });
  });

  it.each([
    'fixed',
    'lengths:in=normal(8K,2K),out=uniform(128,1K)',
    'lengths:in=lognormal(1000,1.5)',
    'lengths:file=a.jsonl',
    'shared-prefix:prefixes=4,prefix=2K,suffix=300',
    'multi-turn:turns=3,think=exp(1500ms),system=1K,message=256,cap=32K',
    'multi-turn:turns=5,think=2s,system=0,message=512',
    'mooncake:file=t.jsonl,block=512',
  ])('%s reads back from its label', (text) => {
    const spec = readWorkload(text);
    expect(typeof spec).toBe('object');
    expect(workloadLabel(spec as never)).toBe(text);
    expect(readWorkload(workloadLabel(spec as never))).toEqual(spec);
  });

  it.each([
    [
      'bogus',
      /unknown workload "bogus": expected one of fixed, lengths, shared-prefix, multi-turn, mooncake/,
    ],
    ['fixed:x=1', /fixed: unknown parameter x \(fixed takes none\)/],
    ['lengths', /give either file= or in=.*; write lengths:file=F.jsonl or lengths:in=/],
    ['lengths:file=a.jsonl,out=5', /out= goes with in=/],
    ['lengths:in=normal(8K)', /in: normal\( \) takes 2 values/],
    ['lengths:in=uniform(1K,5)', /the first bound must not pass the second/],
    ['lengths:in=lognormal(1K,x)', /sigma a plain number/],
    [
      'shared-prefix:prefix=2K',
      /shared-prefix: suffix: missing; write shared-prefix:prefixes=P,prefix=L,suffix=S/,
    ],
    [
      'shared-prefix:prefix=2K,suffix=1,foo=3',
      /unknown parameter foo \(shared-prefix takes prefixes, prefix, suffix\)/,
    ],
    ['shared-prefix:prefixes=0,prefix=1,suffix=1', /prefixes: expected a whole number/],
    ['shared-prefix:prefix=two,suffix=1', /prefix: expected a token count like 8K/],
    ['multi-turn:think=fast', /think: expected a think time like 2s/],
    ['multi-turn:turns', /"turns" has no value: write turns=/],
    ['multi-turn:turns=2,turns=3', /turns is given twice/],
    ['mooncake', /mooncake: file: missing; write mooncake:file=F.jsonl,block=512/],
    ['mooncake:file=t,block=0', /block: expected a whole number/],
  ])('%s: one line naming the problem and the syntax', (text, message) => {
    const r = readWorkload(text);
    expect(r).toMatch(message);
    expect(String(r)).not.toContain('\n');
  });

  it('a YAML value of the wrong shape, or no kind, is said', () => {
    expect(readWorkload(3)).toMatch(/expected a workload like shared-prefix:/);
    expect(readWorkload({ prefix: 1 })).toMatch(/no kind: expected one of/);
    expect(readWorkload({ kind: 'shared-prefix', prefix: 1, suffix: 1, extra: true })).toMatch(
      /unknown parameter extra/,
    );
  });

  it('parseWorkload throws it as CONFIG_INVALID, naming where the spec came from', () => {
    const e = (() => {
      try {
        parseWorkload('shared-prefix:prefix=2K', 'config file run.yaml: workload');
      } catch (err) {
        return err as BenchError;
      }
    })();
    expect(e).toBeInstanceOf(BenchError);
    expect(e!.code).toBe('CONFIG_INVALID');
    expect(e!.message).toBe(
      'config file run.yaml: workload: shared-prefix: suffix: missing; write shared-prefix:prefixes=P,prefix=L,suffix=S',
    );
    expect(e!.hint).toMatch(/docs\/workloads.md/);
  });
});
