import { Job } from 'kubernetes-models/batch/v1';
import { Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { k8sObjects } from '../../src/deploy/k8s.js';
import { runCliInProcess } from '../helpers/cli.js';

// `deploy k8s|slurm` prints what the cluster's scheduler runs (docs/distributed.md). The manifest is read back as
// a user's kubectl would get it and checked against the Kubernetes API schema by kubernetes-models' validate().

const KEY = 'sk-deploy-test-key-7f3a9c';
const RUN_FLAGS = [
  '--base-url',
  'http://vllm.models.svc:8000/v1',
  '--contexts',
  '8K,32K',
  '--concurrency',
  '64,1024',
];

async function deploy(args: string[]) {
  return runCliInProcess(['deploy', ...args], {
    env: { OPENAI_API_KEY: KEY, LLM_BENCH_AGENT_TOKEN: 'tok-abc-123' },
  });
}

describe('deploy k8s', () => {
  it('prints a headless Service and an Indexed Job of K agents that pass the Kubernetes schema', async () => {
    const r = await deploy(['k8s', '--agents', '4', ...RUN_FLAGS, '--name', 'bench', '--namespace', 'perf']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJSON() as Record<string, unknown>);
    expect(docs.map((d) => d.kind)).toEqual(['Service', 'Job']);
    const service = new Service(docs[0] as ConstructorParameters<typeof Service>[0]);
    const job = new Job(docs[1] as ConstructorParameters<typeof Job>[0]);
    service.validate(); // throws on any schema error
    job.validate();
    expect(service.spec!.clusterIP).toBe('None');
    expect(service.spec!.selector).toEqual({ 'batch.kubernetes.io/job-name': 'bench' });
    expect(service.metadata!.namespace).toBe('perf');
    const spec = job.spec!;
    expect(spec.completionMode).toBe('Indexed');
    expect(spec.completions).toBe(4);
    expect(spec.parallelism).toBe(4);
    const pod = spec.template.spec!;
    expect(pod.subdomain).toBe('bench');
    const c = pod.containers[0]!;
    const script = c.command![2]!;
    expect(script).toContain(
      'run --agents 4 --coordinator http://bench-0.bench:7070 --out /results --run-id ',
    );
    expect(script).toContain(
      '--base-url http://vllm.models.svc:8000/v1 --contexts 8K,32K --concurrency 64,1024',
    );
    expect(script).toContain('JOB_COMPLETION_INDEX');
    // secrets only by reference: the key and the token are nowhere in what was printed
    const refs = Object.fromEntries(c.env!.map((e) => [e.name, e.valueFrom?.secretKeyRef]));
    expect(refs.LLM_BENCH_AGENT_TOKEN).toEqual({ name: 'bench', key: 'run-token' });
    expect(refs.OPENAI_API_KEY).toEqual({ name: 'bench', key: 'api-key', optional: true });
    expect(c.env!.every((e) => e.value === undefined)).toBe(true);
    expect(r.stdout).not.toContain(KEY);
    expect(r.stdout).not.toContain('tok-abc-123');
  });

  // How the result leaves the cluster (docs/distributed.md "Kubernetes", step 4). Every agent exits 0 after a
  // complete run, so each index completes once; a failed container restarts in its pod and agent 0 resumes.
  function jobOf(stdout: string): Job {
    const docs = parseAllDocuments(stdout).map((d) => d.toJSON() as Record<string, unknown>);
    const job = new Job(docs[1] as ConstructorParameters<typeof Job>[0]);
    job.validate();
    return job;
  }

  it('by default agent 0 keeps the result in its emptyDir and waits, printing the kubectl cp command', async () => {
    const r = await deploy(['k8s', '--agents', '3', ...RUN_FLAGS, '--name', 'bench']);
    expect(r.code).toBe(0);
    const job = jobOf(r.stdout);
    const pod = job.spec!.template.spec!;
    expect(pod.restartPolicy).toBe('OnFailure');
    expect(job.spec!.completions).toBe(3);
    expect(pod.volumes).toEqual([{ name: 'results', emptyDir: {} }]);
    const c = pod.containers[0]!;
    expect(c.volumeMounts).toEqual([{ name: 'results', mountPath: '/results' }]);
    // the pod's name and namespace from the downward API, for the printed command
    const fields = Object.fromEntries(c.env!.map((e) => [e.name, e.valueFrom?.fieldRef?.fieldPath]));
    expect(fields).toMatchObject({ POD_NAME: 'metadata.name', POD_NAMESPACE: 'metadata.namespace' });
    const script = c.command![2]!;
    const runId = /--run-id (\S+)/.exec(script)![1]!;
    const after = script.slice(script.indexOf('code=$?'));
    expect(after).toContain('if [ "${JOB_COMPLETION_INDEX:-0}" = 0 ] && [ "$code" = 0 ]; then');
    expect(after).toContain(`echo "  kubectl cp -n $POD_NAMESPACE $POD_NAME:/results/${runId} ./${runId}"`);
    expect(after).toContain(`kubectl exec -n $POD_NAMESPACE $POD_NAME -- touch /results/${runId}.copied`);
    expect(after).toContain(`while [ "$waited" -lt 3600 ] && [ ! -e /results/${runId}.copied ]; do sleep 2;`);
    expect(after.trimEnd().endsWith('exit $code')).toBe(true);
  });

  it('--results-pvc CLAIM: /results is the claim, and agent 0 ends with the run', async () => {
    const r = await deploy(['k8s', '--agents', '3', ...RUN_FLAGS, '--results-pvc', 'bench-results']);
    expect(r.code).toBe(0);
    const pod = jobOf(r.stdout).spec!.template.spec!;
    expect(pod.volumes).toEqual([{ name: 'results', persistentVolumeClaim: { claimName: 'bench-results' } }]);
    expect(pod.containers[0]!.volumeMounts).toEqual([{ name: 'results', mountPath: '/results' }]);
    const script = pod.containers[0]!.command![2]!;
    expect(script).toMatch(/echo "results: \/results\/\S+ on the claim bench-results"/);
    expect(script).not.toContain('kubectl cp');
    expect(script).not.toContain('sleep');
    // still a wait when asked for one
    const kept = await deploy([
      'k8s',
      '--agents',
      '2',
      ...RUN_FLAGS,
      '--results-pvc',
      'c',
      '--keep-results',
      '60',
    ]);
    expect(kept.stdout).toMatch(/while \[ "\$waited" -lt 60 \]/);
  });

  it('refuses a manifest whose result would go nowhere, and k8s flags for Slurm', async () => {
    const none = await deploy(['k8s', '--agents', '2', ...RUN_FLAGS, '--keep-results', '0']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error \[USAGE\]: --keep-results 0 leaves the result nowhere/);
    expect(none.stderr).toContain('--results-pvc CLAIM');
    const slurm = await deploy(['slurm', '--agents', '2', ...RUN_FLAGS, '--results-pvc', 'c']);
    expect(slurm.code).toBe(2);
    expect(slurm.stderr).toMatch(/--results-pvc is for k8s/);
  });

  it("the schema check is real: a Job the API would refuse fails kubernetes-models' validation", () => {
    const base = {
      name: 'bench',
      agents: 3,
      runId: 'r1',
      runArgs: [],
      command: 'llm-inference-bench',
      port: 7070,
      cpus: 2,
      keepResultsS: 60,
      image: 'img',
      secret: 's',
    };
    const { job } = k8sObjects(base);
    expect(() => job.validate()).not.toThrow();
    (job.spec as { completions: unknown }).completions = 'three';
    expect(() => job.validate()).toThrow(/completions/);
  });

  it('refuses what it must not pass on, and a run of one agent', async () => {
    const key = await deploy(['k8s', '--agents', '2', ...RUN_FLAGS, '--api-key', KEY]);
    expect(key.code).toBe(2);
    expect(key.stderr).toMatch(
      /^error \[USAGE\]: deploy does not pass --api-key on: the key goes in a Secret/,
    );
    expect(key.stderr).not.toContain(KEY);
    const one = await deploy(['k8s', ...RUN_FLAGS]);
    expect(one.stderr).toMatch(/deploy needs --agents K \(2 or more\)/);
    const idx = await deploy(['k8s', '--agents', '2', ...RUN_FLAGS, '--agent-index', '1']);
    expect(idx.stderr).toMatch(/does not pass --agent-index on/);
    const bad = await deploy(['k8s', '--agents', '2', ...RUN_FLAGS, '--duration', 'soon']);
    expect(bad.stderr).toMatch(/^error \[CONFIG_INVALID\]: invalid options: --duration/);
    const where = await deploy(['nomad', '--agents', '2', ...RUN_FLAGS]);
    expect(where.stderr).toMatch(/the schedulers are k8s and slurm/);
  });
});

describe('deploy slurm', () => {
  it('prints an sbatch array script of K tasks that finds agent 0 through the submit folder', async () => {
    const r = await deploy([
      'slurm',
      '--agents',
      '3',
      ...RUN_FLAGS,
      '--out',
      '/shared/bench',
      '--partition',
      'cpu',
    ]);
    expect(r.code).toBe(0);
    const s = r.stdout;
    expect(s.startsWith('#!/bin/bash\n')).toBe(true);
    expect(s).toContain('#SBATCH --array=0-2\n');
    expect(s).toContain('#SBATCH --partition=cpu\n');
    expect(s).toContain('if [ "$SLURM_ARRAY_TASK_ID" = 0 ]; then');
    expect(s).toMatch(
      /run --agents 3 --coordinator "\$COORDINATOR" --out \/shared\/bench --run-id \S+ --base-url/,
    );
    expect(s.match(/--out /g)).toHaveLength(1); // the given --out is placed once, by the script
    expect(s).toContain('${LLM_BENCH_AGENT_TOKEN:?');
    expect(s).not.toContain(KEY);
    expect(s).not.toContain('tok-abc-123');
  });
});

describe('deploy --help', () => {
  // deploy k8s refuses to run without --base-url and --agents K: its help says so, with the rest of run's flags.
  it('names the run flags it requires and takes', async () => {
    const r = await runCliInProcess(['deploy', '--help']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    // 80 columns: the usage names the run flags; their section below says which are required.
    expect(lines[0]).toBe('Usage: llm-inference-bench deploy [options] <scheduler> [run flags]');
    const at = lines.indexOf("Run flags (passed on to each agent's `run`; `run --help` lists them):");
    expect(at).toBeGreaterThan(0);
    const section = lines.slice(at + 1).join('\n');
    expect(section).toMatch(/^ {2}--base-url <url> +required: the server the agents measure$/m);
    expect(section).toMatch(/^ {2}--agents <k> +required, 2 or more: /m);
    expect(section).toMatch(/except --agent-index,[\s\S]*--api-key,/);
    expect(lines.filter((l) => l.length > 80)).toEqual([]);
  });
});
