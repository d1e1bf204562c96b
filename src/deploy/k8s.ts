import { Job } from 'kubernetes-models/batch/v1';
import { Service } from 'kubernetes-models/v1';
import { stringify } from 'yaml';
import { TOOL_NAME } from '../version.js';
import { agentScript, RESULTS_DIR, type DeploySpec } from './spec.js';

// `deploy k8s` (docs/distributed.md "Kubernetes"): an Indexed Job of K pods (the index is JOB_COMPLETION_INDEX)
// and a headless Service that gives pod 0 a name the others resolve (<name>-0.<name>). Built from the typed models
// of kubernetes-models, each validated against the Kubernetes API schema before it is printed. Secrets are
// referenced, never written: the API key and the run token come from a Secret the user creates.

export interface K8sSpec extends DeploySpec {
  namespace?: string;
  image: string;
  secret: string; // holds `run-token` and, optionally, `api-key`
  resultsPvc?: string; // a PersistentVolumeClaim mounted at /results; without one, an emptyDir of each pod
  keepResultsS: number; // how long agent 0 waits after a complete run for its results to be copied (kubectl cp)
}

// How the result leaves the cluster (docs/distributed.md "Kubernetes", step 4): on the claim, or copied from agent
// 0 with the command it prints while it waits (its emptyDir goes with the pod); the copier releases it early,
// and its exit completes the Job.
export function resultsExit(d: K8sSpec): string[] {
  const folder = `${RESULTS_DIR}/${d.runId}`;
  const lines = d.resultsPvc ? [`echo "results: ${folder} on the claim ${d.resultsPvc}"`] : [];
  if (d.keepResultsS <= 0) return lines;
  const released = `${folder}.copied`;
  const pod = '-n $POD_NAMESPACE $POD_NAME';
  return [
    ...lines,
    `echo "results: ${folder}; agent 0 waits ${d.keepResultsS} s for them to be copied:"`,
    `echo "  kubectl cp ${pod}:${folder} ./${d.runId}"`,
    `echo "then let the Job complete: kubectl exec ${pod} -- touch ${released}"`,
    'waited=0',
    `while [ "$waited" -lt ${d.keepResultsS} ] && [ ! -e ${released} ]; do sleep 2; waited=$((waited + 2)); done`,
  ];
}

// --keep-results without a claim: an hour to copy the result out of agent 0.
export const KEEP_RESULTS_S = 3600;

export const SECRET_KEYS = { token: 'run-token', apiKey: 'api-key' } as const;

export function k8sObjects(d: K8sSpec): { service: Service; job: Job } {
  const labels = { 'app.kubernetes.io/name': TOOL_NAME, 'app.kubernetes.io/instance': d.name };
  const meta = { name: d.name, labels, ...(d.namespace ? { namespace: d.namespace } : {}) };
  const coordinator = `http://${d.name}-0.${d.name}:${d.port}`;
  const service = new Service({
    metadata: meta,
    spec: {
      clusterIP: 'None', // headless: a DNS name per pod, no load balancing
      publishNotReadyAddresses: true, // pod 0 is reachable as soon as it listens
      selector: { 'batch.kubernetes.io/job-name': d.name },
      ports: [{ name: 'agents', port: d.port, targetPort: d.port, protocol: 'TCP' }],
    },
  });
  const job = new Job({
    metadata: meta,
    spec: {
      completionMode: 'Indexed',
      completions: d.agents,
      parallelism: d.agents, // every agent at once: a cell waits for all of them
      // Every agent exits 0 after a complete run, so each index completes once and the Job with them; a failed
      // container restarts in its pod (agent 0 resumes on the same volume), each restart counted here.
      backoffLimit: 6,
      template: {
        metadata: { labels },
        spec: {
          subdomain: d.name, // with the headless Service: <name>-<index>.<name> resolves to each pod
          restartPolicy: 'OnFailure', // a restarted container keeps the pod's results volume: agent 0 resumes
          containers: [
            {
              name: 'agent',
              image: d.image,
              command: [
                '/bin/sh',
                '-c',
                agentScript(d, coordinator, RESULTS_DIR, 'JOB_COMPLETION_INDEX', resultsExit(d)),
              ],
              env: [
                // the pod's own name and namespace, for the `kubectl cp` command agent 0 prints
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                {
                  name: 'LLM_BENCH_AGENT_TOKEN',
                  valueFrom: { secretKeyRef: { name: d.secret, key: SECRET_KEYS.token } },
                },
                {
                  name: 'OPENAI_API_KEY',
                  valueFrom: { secretKeyRef: { name: d.secret, key: SECRET_KEYS.apiKey, optional: true } },
                },
              ],
              ports: [{ name: 'agents', containerPort: d.port, protocol: 'TCP' }],
              resources: { requests: { cpu: String(d.cpus) }, limits: { cpu: String(d.cpus) } },
              volumeMounts: [{ name: 'results', mountPath: RESULTS_DIR }],
            },
          ],
          volumes: [
            d.resultsPvc
              ? { name: 'results', persistentVolumeClaim: { claimName: d.resultsPvc } }
              : { name: 'results', emptyDir: {} },
          ],
        },
      },
    },
  });
  return { service, job };
}

/** The manifest as YAML, both objects validated (kubernetes-models' validate() throws on a schema error). */
export function k8sManifest(d: K8sSpec): string {
  const { service, job } = k8sObjects(d);
  service.validate();
  job.validate();
  const doc = (o: { toJSON(): unknown }) => stringify(o.toJSON(), { lineWidth: 0 });
  return `${doc(service)}---\n${doc(job)}`;
}
