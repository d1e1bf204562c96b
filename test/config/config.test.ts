import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { BenchError } from '../../src/errors.js';
import { OPTIONS, addOptions, resolveOptions } from '../../src/config/index.js';

function parse(argv: string[]) {
  const program = new Command().exitOverride();
  const cmd = addOptions(program.command('run'), 'run');
  let out: ReturnType<typeof resolveOptions> | undefined;
  cmd.action((opts: Record<string, unknown>) => {
    out = resolveOptions('run', opts, (k) => cmd.getOptionValueSource(k) === 'cli');
  });
  program.parse(['run', ...argv], { from: 'user' });
  return out!;
}

const dir = mkdtempSync(join(tmpdir(), 'lib-config-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('options table', () => {
  it('gives every option a unique key and flag matching its key', () => {
    const keys = OPTIONS.map((o) => o.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const o of OPTIONS) {
      const flagName = /--(?:no-)?([a-z-]+)/.exec(o.flag)![1]!;
      expect(flagName.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())).toBe(o.key);
    }
  });
});

describe('resolveOptions', () => {
  it('applies defaults and parses lists with K suffixes', () => {
    const o = parse([
      '--base-url',
      'http://127.0.0.1:1/v1',
      '--contexts',
      '8K,16k,32768',
      '--concurrency',
      '1,4',
    ]);
    expect(o.contexts).toEqual([8192, 16384, 32768]);
    expect(o.concurrency).toEqual([1, 4]);
    expect(o.maxOutput).toBe(4096);
    expect(o.duration).toBe(30);
    expect(o.ignoreEos).toBe(true);
    expect(o.api).toBe('chat');
  });

  it('lets flags win over the config file, which wins over defaults', () => {
    const cfg = file('a.yaml', 'maxOutput: 512\nduration: 2.5\ncontexts: [8K, 16K]\nignoreEos: false\n');
    const o = parse(['--config', cfg, '--duration', '7']);
    expect(o.maxOutput).toBe(512);
    expect(o.duration).toBe(7);
    expect(o.contexts).toEqual([8192, 16384]);
    expect(o.ignoreEos).toBe(false);
    expect(parse(['--no-ignore-eos']).ignoreEos).toBe(false);
  });

  it('lists every problem of a config file with its path', () => {
    const cfg = file(
      'b.yaml',
      'maxOutput: -3\ncontexts: [8K, banana]\ndurration: 5\napiKey: sk-nope-12345\n',
    );
    try {
      parse(['--config', cfg]);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(BenchError);
      const err = e as BenchError;
      expect(err.code).toBe('CONFIG_INVALID');
      expect(err.message).toContain('maxOutput: expected a value >= 1');
      expect(err.message).toContain('contexts[1]: expected a token count');
      expect(err.message).toContain('durration: unknown key (did you mean duration?)');
      expect(err.message).toContain('apiKey: API keys are never read from a config file');
      expect(err.message).not.toContain('sk-nope-12345');
    }
  });

  it('reports bad flag values with the flag name', () => {
    expect(() => parse(['--max-output', 'lots', '--concurrency', '1,0'])).toThrow(
      /--concurrency\[1\]: expected a value >= 1; --max-output: expected a number/,
    );
    expect(() => parse(['--base-url', 'ftp://x'])).toThrow(/--base-url: expected an http/);
  });
});
