import { fsError } from '../fs-errors.js';
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { BenchError } from '../errors.js';
import {
  OPTIONS,
  OPTION_TABLE,
  defaultOf,
  descriptionOf,
  optionsFor,
  type CommandName,
  type OptionKey,
  type Options,
  type OptionSpec,
  shapesPlan,
} from './options.js';
import type { OptionProblem } from './schema.js';
import { problemText, validateValues } from './schema.js';
import { suggest } from '../suggest.js';
import { yamlProblem } from '../yaml-error.js';

// plan takes every run flag so the verb can be swapped; those that cannot change a plan are listed apart.
const PLAN_ACCEPTS = 'run flags (accepted, no effect on the plan):';

export function addOptions(cmd: Command, name: CommandName): Command {
  // What the command cannot run without leads its --help; the rest keep the table's order.
  const required = (o: OptionSpec) => o.requiredFor?.includes(name) === true;
  const specs = optionsFor(name);
  for (const o of [...specs.filter(required), ...specs.filter((o) => !required(o))]) {
    // Defaults are applied after merging with the config file, so --help shows them but commander never sets them.
    const d = o.computedDefault?.[name] ?? defaultOf(o, name);
    const shown = d !== undefined && o.kind !== 'bool' ? ` (default: ${String(d)})` : '';
    const opt = new Option(o.flag, descriptionOf(o, name) + shown);
    if (o.choices) opt.choices(o.choices);
    if (required(o)) opt.makeOptionMandatory();
    if (name === 'plan' && !shapesPlan(OPTION_TABLE[o.key])) opt.helpGroup(PLAN_ACCEPTS);
    cmd.addOption(opt);
  }
  return cmd;
}

function formatProblems(where: string, problems: OptionProblem[], name?: (path: string) => string): string {
  return `${where}: ${problems.map((p) => problemText(p, name?.(p.path))).join('; ')}`;
}

const CONFIG_HINT = 'Check the path given to --config: a YAML file of the keys listed in docs/cli.md.';

export function readConfigFile(path: string, name: CommandName): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw fsError('CONFIG_INVALID', `cannot read config file ${path}`, e, CONFIG_HINT);
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (e) {
    throw new BenchError('CONFIG_INVALID', `config file ${path} is not valid YAML: ${yamlProblem(e, text)}`);
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw new BenchError('CONFIG_INVALID', `config file ${path} must be a mapping of keys to values`);
  const obj = data as Record<string, unknown>;
  const allowed = OPTIONS.filter((o) => o.configFile === true);
  const forCmd = new Set<string>(
    optionsFor(name)
      .filter((o) => o.configFile === true)
      .map((o) => o.key),
  );
  const problems: OptionProblem[] = [];
  for (const k of Object.keys(obj)) {
    if (k === 'apiKey' || k === 'apiKeyFile' || /api[-_]?key/i.test(k))
      problems.push({
        path: k,
        message:
          'API keys are never read from a config file; use --api-key, --api-key-file or OPENAI_API_KEY',
      });
    else if (!allowed.some((o) => o.key === k)) {
      const s = suggest(
        k,
        allowed.map((o) => o.key),
      );
      problems.push({ path: k, message: `unknown key${s ? ` (did you mean ${s}?)` : ''}` });
    }
  }
  const known = Object.fromEntries(Object.entries(obj).filter(([k]) => forCmd.has(k)));
  const r = validateValues(optionsFor(name), known);
  problems.push(...r.problems);
  if (problems.length > 0)
    throw new BenchError('CONFIG_INVALID', formatProblems(`config file ${path}`, problems));
  return r.values;
}

export interface Resolved<C extends CommandName> {
  options: Options<C>;
  given: ReadonlySet<OptionKey>; // set on the command line or in the config file (not defaults)
}

// Flags (only those given on the command line) over the config file over defaults.
export function resolveOptions<C extends CommandName>(
  name: C,
  flags: Record<string, unknown>,
  isFromCli: (key: string) => boolean,
): Resolved<C> {
  const specs = optionsFor(name);
  const given = Object.fromEntries(
    specs
      .filter((o) => o.key !== 'resume' && isFromCli(o.key) && flags[o.key] !== undefined)
      .map((o) => [o.key, flags[o.key]]),
  );
  const fromFlags = validateValues(specs, given);
  if (fromFlags.problems.length > 0)
    throw new BenchError(
      'CONFIG_INVALID',
      formatProblems('invalid options', fromFlags.problems, (path) => `--${kebab(path)}`),
    );
  const configPath = typeof flags.config === 'string' ? flags.config : undefined;
  const fromFile = configPath ? readConfigFile(configPath, name) : {};
  const merged: Record<string, unknown> = {};
  const set = new Set<OptionKey>();
  for (const o of specs) {
    const v = fromFlags.values[o.key] ?? fromFile[o.key];
    if (v !== undefined) set.add(o.key);
    const value = v ?? defaultOf(o, name);
    if (value !== undefined) merged[o.key] = value;
  }
  // --resume alone means "the run folder is --out" (a boolean); with a value it is the folder.
  if (flags.resume !== undefined) merged.resume = flags.resume === true ? '' : flags.resume;
  // Every value was checked against its option's kind above, so the record has the table's types.
  return { options: merged as Options<C>, given: set };
}

// Adds the command's options from the table and returns its typed reader, for the command's action.
export function withOptions<C extends CommandName>(
  cmd: Command,
  name: C,
): (flags: Record<string, unknown>) => Resolved<C> {
  addOptions(cmd, name);
  return (flags) => resolveOptions(name, flags, (k) => cmd.getOptionValueSource(k) === 'cli');
}

const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
