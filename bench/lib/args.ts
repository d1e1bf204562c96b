// One argument parser for every benchmark (node:util parseArgs): `--name=value` or `--name value`, lists
// comma-separated, `--help` prints the options, a bad one prints one line and exits 2 (bench/README.md).
import { parseArgs } from 'node:util';

export type BenchOption =
  | { type: 'flag'; help: string }
  | { type: 'number'; default?: number; help: string }
  | { type: 'numbers'; default?: readonly number[]; help: string }
  | { type: 'string'; default?: string; help: string }
  | { type: 'strings'; default?: readonly string[]; help: string };

type Parsed<S extends BenchOption> = S extends { type: 'flag' }
  ? boolean
  : S extends { type: 'number' }
    ? number
    : S extends { type: 'numbers' }
      ? number[]
      : S extends { type: 'string' }
        ? string
        : string[];
// An option without a default is undefined when not given (the script picks, e.g. by --quick).
export type BenchArgs<O extends Record<string, BenchOption>> = {
  [K in keyof O]: O[K] extends { type: 'flag' } | { default: unknown }
    ? Parsed<O[K]>
    : Parsed<O[K]> | undefined;
};

export interface BenchUsage<O> {
  /** The npm script, e.g. `bench:fidelity`. */
  name: string;
  /** What it measures, one line. */
  about: string;
  /** Options that may also be given as bare arguments, in this order (an older way to call the script). */
  positionals?: ReadonlyArray<keyof O & string>;
}

export class BenchArgsError extends Error {}

const placeholder: Record<BenchOption['type'], string> = {
  flag: '',
  number: '=<n>',
  numbers: '=<n,n,...>',
  string: '=<text>',
  strings: '=<a,b,...>',
};

/** The --help text. */
export function benchHelp<O extends Record<string, BenchOption>>(usage: BenchUsage<O>, options: O): string {
  const rows = Object.entries(options).map(([name, o]) => {
    const d = 'default' in o && o.default !== undefined ? `; default ${[o.default].flat().join(',')}` : '';
    return [`--${name}${placeholder[o.type]}`, `${o.help}${d}`] as const;
  });
  const width = Math.max(...rows.map(([f]) => f.length));
  const bare = usage.positionals?.length
    ? `\nThe first ${usage.positionals.length === 1 ? 'argument' : `${usage.positionals.length} arguments`} may ` +
      `also be given bare: ${usage.positionals.map((p) => `<${p}>`).join(' ')}.`
    : '';
  return [
    `npm run ${usage.name} -- [options]`,
    usage.about,
    '',
    ...rows.map(([f, h]) => `  ${f.padEnd(width)}  ${h}`),
    `  ${'--help'.padEnd(width)}  this text`,
    bare,
  ]
    .join('\n')
    .trimEnd();
}

function numberOf(name: string, text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n))
    throw new BenchArgsError(`--${name} takes a number, not '${text}'`);
  return n;
}

/** Pure: argv (without node and the script) to typed values, or 'help'. Throws BenchArgsError on bad input. */
export function parseBenchArgs<O extends Record<string, BenchOption>>(
  argv: readonly string[],
  usage: BenchUsage<O>,
  options: O,
): BenchArgs<O> | 'help' {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: (usage.positionals?.length ?? 0) > 0,
      strict: true,
      options: {
        help: { type: 'boolean' },
        ...Object.fromEntries(
          Object.entries(options).map(
            ([k, o]) => [k, { type: o.type === 'flag' ? 'boolean' : 'string' }] as const,
          ),
        ),
      },
    });
  } catch (e) {
    throw new BenchArgsError((e as Error).message.split('\n')[0]!.replace(/\.$/, ''));
  }
  if (parsed.values.help) return 'help';
  const given: Record<string, string | boolean | undefined> = {};
  for (const [k, v] of Object.entries(parsed.values)) given[k] = v as string | boolean;
  const bare = usage.positionals ?? [];
  if (parsed.positionals.length > bare.length)
    throw new BenchArgsError(`unexpected argument '${parsed.positionals[bare.length]}'`);
  parsed.positionals.forEach((p, i) => (given[bare[i]!] ??= p));
  const out: Record<string, unknown> = {};
  for (const [name, o] of Object.entries(options)) {
    const v = given[name];
    if (o.type === 'flag') out[name] = v === true;
    // A list default comes back as a copy, so a script may change what it got.
    else if (typeof v !== 'string')
      out[name] = Array.isArray(o.default) ? [...(o.default as unknown[])] : o.default;
    else if (o.type === 'number') out[name] = numberOf(name, v);
    else if (o.type === 'numbers') out[name] = v.split(',').map((x) => numberOf(name, x));
    else if (o.type === 'strings') out[name] = v.split(',').filter((x) => x !== '');
    else out[name] = v;
  }
  return out as BenchArgs<O>;
}

/** The script's options from process.argv; prints --help or one error line and exits. */
export function benchArgs<O extends Record<string, BenchOption>>(
  usage: BenchUsage<O>,
  options: O,
): BenchArgs<O> {
  try {
    const r = parseBenchArgs(process.argv.slice(2), usage, options);
    if (r !== 'help') return r;
    process.stdout.write(`${benchHelp(usage, options)}\n`);
    process.exit(0);
  } catch (e) {
    if (!(e instanceof BenchArgsError)) throw e;
    process.stderr.write(
      `error [USAGE]: ${usage.name}: ${e.message}. Run it with -- --help for its options.\n`,
    );
    process.exit(2);
  }
}
