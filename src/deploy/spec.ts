import { shellWord } from '../invocation.js';

// What `deploy` prints a scheduler's job for (docs/distributed.md): K copies of one `run --agents K` command, each
// told its index by the scheduler, agent 0 coordinating at an address the others can compute.
export interface DeploySpec {
  name: string; // the job's (and Service's) name
  agents: number;
  runId: string; // fixed, so a restarted coordinator resumes the same run folder
  runArgs: string[]; // the run flags given to deploy, checked, passed on as they were
  command: string; // how the image starts the tool
  port: number; // where agent 0 listens
  cpus: number; // per agent
}

export const RESULTS_DIR = '/results';

/** The one command every copy runs; `coordinator` is the URL the agents reach agent 0 at. */
export function agentCommand(d: DeploySpec, coordinator: string, out: string): string {
  const words = [
    'run',
    '--agents',
    String(d.agents),
    '--coordinator',
    coordinator,
    '--out',
    out,
    '--run-id',
    d.runId,
    ...d.runArgs,
  ];
  return `${d.command} ${words.map(shellWord).join(' ')}`;
}

// The body of every copy: agent 0 continues the run folder a previous attempt left (a restarted container, the
// results volume kept); the others just serve it. Each exits with its run's code: 0 for every agent of a complete
// run, so the scheduler counts the job done (docs/distributed.md). `afterComplete` runs in agent 0 only, after a
// complete run (a failed one exits at once, for its restarted container to resume it).
export function agentScript(
  d: DeploySpec,
  coordinator: string,
  out: string,
  indexVar: string,
  afterComplete: string[] = [],
): string {
  const folder = `${out}/${d.runId}`;
  return [
    'set -u',
    `if [ "\${${indexVar}:-0}" = 0 ] && [ -f ${shellWord(folder)}/result.json ]; then set -- --resume ${shellWord(folder)}; fi`,
    `${agentCommand(d, coordinator, out)} "$@"`,
    'code=$?',
    ...(afterComplete.length > 0
      ? [
          `if [ "\${${indexVar}:-0}" = 0 ] && [ "$code" = 0 ]; then`,
          ...afterComplete.map((l) => `  ${l}`),
          'fi',
        ]
      : []),
    'exit $code',
  ].join('\n');
}
