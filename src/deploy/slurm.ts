import { shellWord } from '../invocation.js';
import { agentScript, type DeploySpec } from './spec.js';

// `deploy slurm` (docs/distributed.md "Slurm"): an sbatch script for a job array of K tasks (the index is
// SLURM_ARRAY_TASK_ID). Agent 0's node is known only once it runs, so it writes its address to a file in the
// submit folder (a shared file system) and the others wait for it. The API key and the run token are exported in
// the environment sbatch copies into the job (never written in the script).

export interface SlurmSpec extends DeploySpec {
  out: string; // the results folder, on the shared file system
  partition?: string;
}

export function slurmScript(d: SlurmSpec): string {
  const rendezvous = `\${SLURM_SUBMIT_DIR}/.${d.name}-\${SLURM_ARRAY_JOB_ID}.coordinator`;
  const lines = [
    '#!/bin/bash',
    `#SBATCH --job-name=${d.name}`,
    `#SBATCH --array=0-${d.agents - 1}`,
    '#SBATCH --ntasks=1',
    `#SBATCH --cpus-per-task=${d.cpus}`,
    `#SBATCH --output=${d.name}-%A_%a.log`,
    ...(d.partition ? [`#SBATCH --partition=${d.partition}`] : []),
    '# Submit with the secrets in the environment (sbatch passes it on; nothing secret is written here):',
    '#   LLM_BENCH_AGENT_TOKEN=$(openssl rand -hex 24) OPENAI_API_KEY=... sbatch THIS_FILE',
    `# Every task runs at once or the run waits for the missing ones (--agent-wait); see docs/distributed.md.`,
    ': "${LLM_BENCH_AGENT_TOKEN:?export LLM_BENCH_AGENT_TOKEN before sbatch (docs/distributed.md)}"',
    `RENDEZVOUS="${rendezvous}"`,
    'if [ "$SLURM_ARRAY_TASK_ID" = 0 ]; then',
    `  echo "http://$(hostname -f):${d.port}" > "$RENDEZVOUS.tmp" && mv "$RENDEZVOUS.tmp" "$RENDEZVOUS"`,
    'fi',
    'for _ in $(seq 600); do [ -s "$RENDEZVOUS" ] && break; sleep 1; done',
    'COORDINATOR=$(cat "$RENDEZVOUS")',
    agentScript(d, '$COORDINATOR', d.out, 'SLURM_ARRAY_TASK_ID').replace(
      shellWord('$COORDINATOR'),
      '"$COORDINATOR"',
    ),
  ];
  return lines.join('\n') + '\n';
}
