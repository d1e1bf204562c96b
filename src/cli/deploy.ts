import { Command } from 'commander';
import { withOptions, type Resolved } from '../config/resolve.js';
import { OPTION_TABLE, type OptionKey, type Options } from '../config/options.js';
import { wrap } from '../report/text.js';
import { terminalWidth } from '../report/terminal.js';
import { newRunId } from '../bench/settings.js';
import { BenchError } from '../errors.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import type { CliIo } from './io.js';

// `deploy k8s|slurm --agents K [run flags]` (docs/distributed.md): prints what the cluster's own scheduler needs to
// start one run over K agents. The run flags are checked as `run` checks them and passed on as given; what deploy
// sets itself (the agents' index, addresses, output) or what must not be written (the API key) is refused.

const SCHEDULERS = ['k8s', 'slurm'] as const;

// Set by the job itself, or secret: never taken from the run flags.
const NOT_FORWARDED: Partial<Record<OptionKey, string>> = {
  agentIndex: 'the scheduler gives each agent its index',
  coordinator: "deploy computes agent 0's address",
  local: "the agents are the scheduler's, not local processes",
  resume: 'agent 0 resumes by itself when its container restarts',
  runId: 'deploy fixes the run id, so a restarted agent 0 resumes the same folder',
  apiKey: 'the key goes in a Secret (k8s) or the environment (slurm), never in the printed job',
  apiKeyFile: 'the key comes from the Secret (k8s) or the environment (slurm)',
  agentTokenFile: 'the run token comes from the Secret (k8s) or the environment (slurm)',
  config: 'the config file is not in the image: give its flags',
};

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('deploy')
    .description(
      'print a Kubernetes Indexed Job + headless Service, or a Slurm array script, that runs `run --agents K` (docs/distributed.md)',
    )
    .argument('<scheduler>', 'k8s or slurm')
    .usage('[options] <scheduler> [run flags]') // --base-url and --agents: the run flags' own section
    .addHelpText('after', () => runFlagsHelp(terminalWidth(io.stdout)))
    .allowUnknownOption()
    .allowExcessArguments();
  const resolve = withOptions(cmd, 'deploy');
  cmd.action(async (scheduler: string, flags: Record<string, unknown>, self: Command) => {
    if (!(SCHEDULERS as readonly string[]).includes(scheduler))
      throw new BenchError('USAGE', `deploy ${scheduler}: the schedulers are ${SCHEDULERS.join(' and ')}.`);
    await deploy(io, scheduler, resolve(flags), self.args.slice(1));
  });
}

// What every scheduler's job holds: the run flags checked as `run` checks them, less what deploy sets itself.
interface JobBase {
  name: string;
  agents: number;
  runId: string;
  runArgs: string[];
  command: string;
  port: number;
  cpus: number;
}

async function deploy(
  io: CliIo,
  scheduler: string,
  resolved: Resolved<'deploy'>,
  runArgs: string[],
): Promise<void> {
  const { options: d, given } = resolved;
  const run = parseRunFlags(runArgs);
  for (const key of run.given) {
    const why = NOT_FORWARDED[key];
    if (why) throw new BenchError('USAGE', `deploy does not pass --${kebab(key)} on: ${why}.`);
  }
  const agents = run.options.agents ?? 1;
  if (agents < 2)
    throw new BenchError('USAGE', 'deploy needs --agents K (2 or more): one agent runs without a scheduler.');
  if (!run.options.baseUrl && !run.given.has('baseUrl'))
    throw new BenchError('USAGE', 'deploy needs --base-url: the server the agents measure.');
  const name = d.name ?? TOOL_NAME;
  if (!/^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$/.test(name))
    throw new BenchError('USAGE', `--name ${name} is not a DNS label (lower case letters, digits, '-').`);
  const base: JobBase = {
    name,
    agents,
    runId: newRunId(),
    runArgs: withoutFlag(withoutFlag(runArgs, '--agents'), '--out'),
    command: d.toolCommand ?? `npx --yes ${TOOL_NAME}@${TOOL_VERSION}`,
    port: d.port,
    cpus: d.cpus,
  };
  io.stdout.write(scheduler === 'k8s' ? await k8sJob(base, d, run) : await slurmJob(base, d, given, run));
}

async function k8sJob(base: JobBase, d: Options<'deploy'>, run: Resolved<'run'>): Promise<string> {
  if (run.given.has('out'))
    throw new BenchError('USAGE', 'deploy k8s writes to /results in agent 0: drop --out.');
  const { k8sManifest, KEEP_RESULTS_S } = await import('../deploy/k8s.js');
  const keep = d.keepResults ?? (d.resultsPvc ? 0 : KEEP_RESULTS_S);
  if (keep === 0 && !d.resultsPvc)
    throw new BenchError(
      'USAGE',
      "--keep-results 0 leaves the result nowhere: agent 0's emptyDir goes with its pod.",
      {
        hint: 'Give --results-pvc CLAIM (the result stays on it), or the seconds to copy it.',
      },
    );
  return k8sManifest({
    ...base,
    keepResultsS: keep,
    image: d.image,
    secret: d.secret ?? base.name,
    ...(d.namespace ? { namespace: d.namespace } : {}),
    ...(d.resultsPvc ? { resultsPvc: d.resultsPvc } : {}),
  });
}

async function slurmJob(
  base: JobBase,
  d: Options<'deploy'>,
  given: Resolved<'deploy'>['given'],
  run: Resolved<'run'>,
): Promise<string> {
  for (const k8sOnly of ['keepResults', 'resultsPvc'] as const)
    if (given.has(k8sOnly))
      throw new BenchError(
        'USAGE',
        `--${kebab(k8sOnly)} is for k8s: a Slurm run writes to --out on the shared file system.`,
      );
  const { slurmScript } = await import('../deploy/slurm.js');
  return slurmScript({
    ...base,
    out: run.options.out,
    ...(d.partition ? { partition: d.partition } : {}),
  });
}

// The run flags deploy reads itself and passes on: they are `run`'s, so commander does not list them.
function runFlagsHelp(width: number): string {
  const col = 28; // where commander starts the descriptions above
  const item = (term: string, text: string) =>
    wrap(text, Math.max(20, width - col)).map((l, i) => `${i ? '' : `  ${term}`}`.padEnd(col) + l);
  const flag = (k: OptionKey) => OPTION_TABLE[k].flag;
  const refused = (Object.keys(NOT_FORWARDED) as OptionKey[]).map((k) => `--${kebab(k)}`).join(', ');
  return [
    '',
    ...wrap("Run flags (passed on to each agent's `run`; `run --help` lists them):", width),
    ...item(flag('baseUrl'), 'required: the server the agents measure'),
    ...item(flag('agents'), `required, 2 or more: ${OPTION_TABLE.agents.description}`),
    ...item('[run flags]', `any other run flag, except ${refused} (deploy sets them, or they are secret)`),
  ].join('\n');
}

const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

// The run flags as `run` reads them: unknown flags and bad values fail here, with run's own messages.
function parseRunFlags(argv: string[]): Resolved<'run'> {
  const run = new Command('run').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  const resolve = withOptions(run, 'run');
  let out: Resolved<'run'> | undefined;
  run.action((flags: Record<string, unknown>) => {
    out = resolve(flags);
  });
  run.parse(argv, { from: 'user' });
  return out!;
}

// A flag and its value (two words, or one with '='): --agents is deploy's to place, and so is Slurm's --out (where
// agent 0 writes and resumes).
function withoutFlag(argv: readonly string[], flag: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === flag) i += 1;
    else if (!argv[i]!.startsWith(`${flag}=`)) out.push(argv[i]!);
  }
  return out;
}
