import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { BenchError } from '../../src/errors.js';
import {
  COMMANDS,
  OPTIONS,
  addOptions,
  resolveOptions,
  type CommandName,
  type Options,
} from '../../src/config/index.js';

function parse(argv: string[]) {
  const program = new Command().exitOverride();
  const cmd = addOptions(program.command('run'), 'run');
  let out: Options<'run'> | undefined;
  cmd.action((opts: Record<string, unknown>) => {
    out = resolveOptions('run', opts, (k) => cmd.getOptionValueSource(k) === 'cli').options;
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
      expect(err.message).toContain('maxOutput: expected a token count like 8K, 1M or 8192');
      expect(err.message).toContain('contexts[1]: expected a token count');
      expect(err.message).toContain('durration: unknown key (did you mean duration?)');
      expect(err.message).toContain('apiKey: API keys are never read from a config file');
      expect(err.message).not.toContain('sk-nope-12345');
    }
  });

  it('reports bad flag values with the flag name', () => {
    expect(() => parse(['--max-output', 'lots', '--concurrency', '1,0'])).toThrow(
      /--concurrency\[1\]: expected a value >= 1; --max-output: expected a token count/,
    );
    expect(() => parse(['--base-url', 'ftp://x'])).toThrow(/--base-url: expected an http/);
  });

  it('reads durations as 30, 30s, 2m and token counts as 8K wherever the docs say so', () => {
    const o = parse([
      '--duration',
      '2m',
      '--ramp-timeout',
      '45s',
      '--settle-pause',
      '500ms',
      '--max-output',
      '8K',
      '--max-model-len',
      '1M',
    ]);
    expect([o.duration, o.rampTimeout, o.settlePause]).toEqual([120, 45, 0.5]);
    expect([o.maxOutput, o.maxModelLen]).toEqual([8192, 1048576]);
    expect(parse(['--duration', '30']).duration).toBe(30);
    const cfg = file('d.yaml', 'duration: 1.5m\nsettleTimeout: 90s\nmaxOutput: 2K\n');
    const y = parse(['--config', cfg]);
    expect([y.duration, y.settleTimeout, y.maxOutput]).toEqual([90, 90, 2048]);
    expect(() => parse(['--duration', '2 weeks'])).toThrow(
      /--duration: expected a duration like 30, 30s or 2m/,
    );
  });

  it('names the options given (flags and config file), not the defaults', () => {
    const program = new Command().exitOverride();
    const cmd = addOptions(program.command('run'), 'run');
    let given: ReadonlySet<string> = new Set();
    const cfg = file('g.yaml', 'maxOutput: 512\n');
    cmd.action((opts: Record<string, unknown>) => {
      given = resolveOptions('run', opts, (k) => cmd.getOptionValueSource(k) === 'cli').given;
    });
    program.parse(['run', '--config', cfg, '--duration', '7', '--no-ignore-eos'], { from: 'user' });
    expect([...given].sort()).toEqual(['config', 'duration', 'ignoreEos', 'maxOutput']);
  });
});

describe('every command takes its flags from the table', () => {
  it('gives each command exactly the options the table lists for it, with per-command defaults', () => {
    for (const name of COMMANDS) {
      const cmd = addOptions(new Command(name), name);
      const flags = cmd.options.map((o) => o.flags).sort();
      expect(flags, name).toEqual(
        OPTIONS.filter((o) => o.commands.includes(name))
          .map((o) => o.flag)
          .sort(),
      );
    }
    const port = (name: CommandName) =>
      addOptions(new Command(name), name).options.find((o) => o.long === '--port')!.description;
    expect(port('sim')).toContain('(default: 0)');
    expect(port('serve')).toContain('(default: 8321)');
  });
});
