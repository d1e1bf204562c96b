import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchArgsError, benchHelp, parseBenchArgs, type BenchOption } from '../../bench/lib/args.js';

const OPTIONS = {
  quick: { type: 'flag', help: 'short' },
  streams: { type: 'numbers', default: [64, 256], help: 'stream counts' },
  window: { type: 'number', help: 'seconds' },
  engines: { type: 'strings', help: 'engines' },
  only: { type: 'string', help: 'a name' },
} satisfies Record<string, BenchOption>;
const USAGE = { name: 'bench:x', about: 'What x measures.', positionals: ['window'] as const };
const parse = (...argv: string[]) => parseBenchArgs(argv, USAGE, OPTIONS);

describe('bench argument parsing (node:util parseArgs)', () => {
  it('takes the defaults when nothing is given', () => {
    expect(parse()).toEqual({
      quick: false,
      streams: [64, 256],
      window: undefined,
      engines: undefined,
      only: undefined,
    });
  });

  it('reads --name=value, --name value, lists and flags', () => {
    expect(
      parse('--quick', '--streams=1,2,3', '--window', '2.5', '--engines=vllm,tgi', '--only=lean'),
    ).toEqual({
      quick: true,
      streams: [1, 2, 3],
      window: 2.5,
      engines: ['vllm', 'tgi'],
      only: 'lean',
    });
  });

  it('reads a bare argument as its option; a flag wins over it', () => {
    expect(parse('30')).toMatchObject({ window: 30 });
    expect(parse('30', '--window=4')).toMatchObject({ window: 4 });
  });

  it('refuses what it cannot read, in one line', () => {
    expect(() => parse('--window=abc')).toThrow(new BenchArgsError("--window takes a number, not 'abc'"));
    expect(() => parse('--streams=64,,256')).toThrow(/--streams takes a number, not ''/);
    expect(() => parse('--bogus')).toThrow(/Unknown option '--bogus'/);
    expect(() => parse('1', '2')).toThrow("unexpected argument '2'");
  });

  it('a list default is a copy the script may change', () => {
    const a = parse() as { streams: number[] };
    a.streams.push(1);
    expect(OPTIONS.streams.default).toEqual([64, 256]);
  });

  it('--help says every option and its default', () => {
    expect(parse('--help')).toBe('help');
    expect(benchHelp(USAGE, OPTIONS).split('\n')).toEqual([
      'npm run bench:x -- [options]',
      'What x measures.',
      '',
      '  --quick              short',
      '  --streams=<n,n,...>  stream counts; default 64,256',
      '  --window=<n>         seconds',
      '  --engines=<a,b,...>  engines',
      '  --only=<text>        a name',
      '  --help               this text',
      '',
      'The first argument may also be given bare: <window>.',
    ]);
  });

  it('every benchmark reads its arguments through bench/lib/args.ts', () => {
    const dir = resolve(import.meta.dirname, '../../bench');
    const scripts = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    const pkg = JSON.parse(readFileSync(resolve(dir, '../package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    // The npm scripts' entry points, each with its --help.
    const entries = Object.values(pkg.scripts).flatMap((s) => /bench\/([\w-]+\.ts)/.exec(s)?.[1] ?? []);
    expect(entries.length).toBeGreaterThanOrEqual(14);
    for (const f of scripts) {
      const text = readFileSync(join(dir, f), 'utf8');
      // process.argv[1] (is this file the entry point?) is not an argument.
      expect(text.replace(/process\.argv\[1\]/g, ''), f).not.toMatch(/process\.argv/);
      if (entries.includes(f)) expect(text, f).toMatch(/benchArgs\(\s*\{\s*name: 'bench:[\w-]+'/);
    }
  });
});
