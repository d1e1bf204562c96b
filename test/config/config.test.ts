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
  parseCapacity,
  parseCell,
  parsePercent,
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
      expect(err.message).toContain('contexts: the 2nd value "banana": expected a token count');
      expect(err.message).toContain('durration: unknown key (did you mean duration?)');
      expect(err.message).toContain('apiKey: API keys are never read from a config file');
      expect(err.message).not.toContain('sk-nope-12345');
    }
  });

  it('reports bad flag values with the flag name', () => {
    expect(() => parse(['--max-output', 'lots', '--concurrency', '1,0'])).toThrow(
      /--concurrency: the 2nd value "0": expected a value >= 1; --max-output: expected a token count/,
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

describe('kinds and per-command readings', () => {
  it('parses percentages, cells and capacities, and nothing else', () => {
    expect(parsePercent('5%')).toBeCloseTo(0.05, 10);
    expect(parsePercent(' 12.5 ')).toBeCloseTo(0.125, 10);
    expect(parsePercent('0%')).toBe(0); // --fail-on 0%: any significant slowdown
    expect([parsePercent('100'), parsePercent('x'), parsePercent('-5%')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect([parseCell('8Kx16'), parseCell(' 1019K × 2 '), parseCell('32768x1')]).toEqual([
      '8192x16',
      '1043456x2',
      '32768x1',
    ]);
    expect([parseCell('8K'), parseCell('8Kx0'), parseCell('bigx2'), parseCell(8)]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect([parseCapacity('3M'), parseCapacity('3000000'), parseCapacity(65536)]).toEqual([
      { tokens: 3145728 },
      { tokens: 3000000 },
      { tokens: 65536 },
    ]);
    expect([parseCapacity('1.5x'), parseCapacity('2X')]).toEqual([{ factor: 1.5 }, { factor: 2 }]);
    expect([parseCapacity('0x'), parseCapacity('-3'), parseCapacity('1.5'), parseCapacity('lots')]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  const readAs = (name: CommandName, argv: string[]) => {
    const quiet = new Command(name).exitOverride().configureOutput({ writeErr: () => undefined });
    const cmd = addOptions(quiet, name);
    let out: Record<string, unknown> = {};
    cmd.action((opts: Record<string, unknown>) => {
      out = resolveOptions(name, opts, (k) => cmd.getOptionValueSource(k) === 'cli').options;
    });
    cmd.parse(argv, { from: 'user' });
    return out;
  };

  it('gives a command its own kind, choices and defaults of a shared flag', () => {
    expect(readAs('predict', ['--twin', 't', '--kv-capacity', '1.5x']).kvCapacity).toEqual({ factor: 1.5 });
    expect(() => readAs('fit', ['-o', 't', '--kv-capacity', '1.5x'])).toThrow(
      /--kv-capacity: expected a token count/,
    );
    expect(readAs('fit', ['-o', 't', '--kv-capacity', '3M']).kvCapacity).toBe(3145728);
    // predict works these out from the twin; run's defaults must not stand in for them
    const p = readAs('predict', ['--twin', 't']);
    expect([p.duration, p.maxOutput, p.out, p.format]).toEqual([undefined, undefined, undefined, 'txt']);
    expect(readAs('run', []).duration).toBe(30);
    expect(readAs('report', ['--format', 'csv']).format).toBe('csv');
    expect(() => readAs('compare', ['--format', 'csv'])).toThrow(/Allowed choices are txt, md, html/);
    expect(readAs('compare', ['--fail-on', '5%']).failOn).toBeCloseTo(0.05, 10);
  });

  it('puts what a command requires first in its --help, marked mandatory', () => {
    const fit = addOptions(new Command('fit'), 'fit').options;
    expect(fit[0]!.flags).toBe('-o, --output <file>');
    expect(fit[0]!.mandatory).toBe(true);
    const predict = addOptions(new Command('predict'), 'predict').options;
    expect(predict[0]!.long).toBe('--twin');
    expect(predict.find((o) => o.long === '--out')!.description).toContain(
      '(default: predicted-<twin name>)',
    );
    expect(addOptions(new Command('report'), 'report').options.every((o) => !o.mandatory)).toBe(true);
  });
});

// A config file that is not YAML said "… is not valid YAML: Flow sequence … at line 2, column 1:" and stopped at
// the colon, where the yaml library goes on with the lines: the problem, where, and the lines, in one line.
describe('a config file that is not YAML', () => {
  const refusal = (text: string) => {
    try {
      parse(['--config', file('broken.yaml', text)]);
    } catch (e) {
      expect(e).toBeInstanceOf(BenchError);
      expect((e as BenchError).code).toBe('CONFIG_INVALID');
      return (e as BenchError).message;
    }
    throw new Error('the config file was read');
  };

  it('says the problem, where, and the lines around it, without a trailing colon', () => {
    const msg = refusal('contexts: [8K\nduration: 10\n');
    expect(msg).toBe(
      `config file ${join(dir, 'broken.yaml')} is not valid YAML: line 2, column 1: flow sequence in block collection must be sufficiently indented and end with a ] (line 1: "contexts: [8K", line 2: "duration: 10")`,
    );
    expect(msg).not.toContain('\n');
  });

  it('a duplicate key names its line', () => {
    expect(refusal('duration: 10\nduration: 20\n')).toContain(
      'is not valid YAML: line 2, column 1: map keys must be unique (line 1: "duration: 10", line 2: "duration: 20")',
    );
  });
});
