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
}

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
              command: ['/bin/sh', '-c', agentScript(d, coordinator, RESULTS_DIR, 'JOB_COMPLETION_INDEX')],
              env: [
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
          volumes: [{ name: 'results', emptyDir: {} }],
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
