import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { AgentHub } from '../bench/drive/agents/hub.js';
import type { AgentServer } from '../bench/drive/agents/http-hub.js';
import { realClock } from '../clock.js';
import { normalizeBaseUrl } from '../bench/settings.js';
import type { Options, OptionKey } from '../config/options.js';
import { BenchError } from '../errors.js';
import { fsError } from '../fs-errors.js';
import { registerSecret } from '../secrets.js';
import type { CliIo } from './io.js';

// `run --agents K` (docs/distributed.md): which agent this process is, its run token, and either the agent's loop
// (index 1..K-1) or agent 0's endpoint for the others (with --local, the others as processes here).

type RunOptions = Options<'run'>;

// The index a scheduler gives each copy of the same command: a Kubernetes Indexed Job, a Slurm job array.
export const INDEX_ENVS = ['JOB_COMPLETION_INDEX', 'SLURM_ARRAY_TASK_ID'] as const;

export function agentIndexOf(o: Pick<RunOptions, 'agentIndex'>, env: NodeJS.ProcessEnv): number {
  if (o.agentIndex !== undefined) return o.agentIndex;
  for (const name of INDEX_ENVS) {
    const v = env[name];
    if (v === undefined || v === '') continue;
    if (!/^\d+$/.test(v.trim()))
      throw new BenchError('USAGE', `${name}=${v} is not an agent index.`, { hint: 'Pass --agent-index I.' });
    return Number(v.trim());
  }
  return 0;
}

// The run's token: every agent shows it to agent 0 (docs/distributed.md "Anywhere else"). From a file (a mounted
// Secret) or the environment; never from a config file or a flag's value, so it is in no process list.
export function agentToken(
  o: Pick<RunOptions, 'agentTokenFile'>,
  env: NodeJS.ProcessEnv,
): string | undefined {
  let token: string | undefined;
  if (o.agentTokenFile !== undefined) {
    try {
      token = readFileSync(o.agentTokenFile, 'utf8').trim();
    } catch (e) {
      throw fsError('CONFIG_INVALID', `cannot read --agent-token-file ${o.agentTokenFile}`, e);
    }
  } else token = env.LLM_BENCH_AGENT_TOKEN?.trim();
  if (token) registerSecret(token);
  return token || undefined;
}

export const newToken = (): string => randomBytes(24).toString('base64url');

const TOKEN_HINT =
  'Set LLM_BENCH_AGENT_TOKEN (the same on every agent; a Kubernetes Secret, docs/distributed.md) or pass --agent-token-file.';

// What --agents asks of this process, checked before anything starts.
export type AgentRole =
  | { role: 'single' }
  | { role: 'coordinator'; agents: number; local: boolean }
  | { role: 'agent'; agents: number; index: number; coordinator: string };

export function agentRole(o: RunOptions, env: NodeJS.ProcessEnv): AgentRole {
  const k = o.agents ?? 1;
  const index = agentIndexOf(o, env);
  if (k <= 1) {
    // --agents 1 --local is one agent, this process: the single client.
    if (o.agentIndex !== undefined && o.agentIndex > 0)
      throw new BenchError('USAGE', '--agent-index needs --agents K (2 or more).');
    return { role: 'single' };
  }
  if (index >= k)
    throw new BenchError('USAGE', `agent index ${index} is not one of 0..${k - 1} (--agents ${k}).`);
  if (index > 0) {
    if (o.local) throw new BenchError('USAGE', '--local is for agent 0, which starts the others.');
    if (!o.coordinator)
      throw new BenchError('USAGE', `agent ${index} needs --coordinator URL (agent 0's address).`, {
        hint: 'e.g. --coordinator http://bench-0.bench:7070',
      });
    return { role: 'agent', agents: k, index, coordinator: o.coordinator };
  }
  if (!o.local && !o.coordinator)
    throw new BenchError('USAGE', 'agent 0 listens for the others on --coordinator URL.', {
      hint: 'Give --coordinator http://HOST:PORT (its port is where agent 0 listens), or --local to start the agents here.',
    });
  return { role: 'coordinator', agents: k, local: o.local === true };
}

/** Agents 1..K-1: serve the coordinator until the run is complete. */
export async function runAsAgent(
  o: RunOptions,
  given: ReadonlySet<OptionKey>,
  role: Extract<AgentRole, { role: 'agent' }>,
  apiKey: string | undefined,
  io: CliIo,
): Promise<void> {
  const token = agentToken(o, io.env);
  if (!token) throw new BenchError('USAGE', `agent ${role.index} has no run token.`, { hint: TOKEN_HINT });
  const [
    { runAgent },
    { HttpLink },
    { skewedClock, skewFromEnv, SKEW_ENV },
    { streamRequest },
    { ClientMonitor },
  ] = await Promise.all([
    import('../bench/drive/agents/agent.js'),
    import('../bench/drive/agents/http-link.js'),
    import('../bench/drive/agents/skew.js'),
    import('../client/stream.js'),
    import('../client/self-check.js'),
  ]);
  const skew = skewFromEnv(io.env[SKEW_ENV]);
  const clock = skew ? skewedClock(realClock, skew.offsetMs, skew.driftMsPerS) : realClock;
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Started by --local: the parent's end (even kill -9) closes this pipe, and the agent goes with it.
  if (io.env.LLM_BENCH_AGENT_PARENT === '1') {
    process.stdin.on('end', onSignal).on('close', onSignal).resume();
  }
  const note = o.quiet ? undefined : (line: string) => void io.stderr.write(`${line}\n`);
  try {
    const r = await runAgent({
      index: role.index,
      agents: role.agents,
      host: hostname(),
      link: new HttpLink(role.coordinator, token),
      clock,
      stream: streamRequest,
      ...(apiKey ? { apiKey } : {}),
      ...(given.has('baseUrl') && o.baseUrl ? { baseUrl: normalizeBaseUrl(o.baseUrl) } : {}),
      waitMs: o.agentWait * 1000,
      monitor: (threads) => new ClientMonitor(threads),
      ...(note ? { note } : {}),
      signal: stop.signal,
    });
    if (!o.quiet)
      io.stdout.write(`agent ${role.index}: run ${r.runId ?? ''} complete, ${r.cells} cells driven\n`);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (io.env.LLM_BENCH_AGENT_PARENT === '1') process.stdin.pause();
  }
}

// How long agent 0 keeps its endpoint open after a complete run for the agents to read 'done' and leave: they do
// within a round trip; one that has not by then is no longer listening.
const LEAVE_GRACE_MS = 5_000;

export interface Coordination {
  hub: AgentHub;
  server: AgentServer;
  close(): Promise<void>;
}

/** Agent 0: the hub, its endpoint, and with --local the other agents as processes of this machine. */
export async function coordinate(
  o: RunOptions,
  role: Extract<AgentRole, { role: 'coordinator' }>,
  apiKey: string | undefined,
  io: CliIo,
  note: (line: string) => void,
): Promise<Coordination> {
  let token = agentToken(o, io.env);
  if (!token && !role.local)
    throw new BenchError('USAGE', 'agent 0 takes only agents holding the run token, and has none.', {
      hint: TOKEN_HINT,
    });
  token ??= newToken();
  registerSecret(token);
  const [{ AgentHub }, { serveAgents, listenAddress }] = await Promise.all([
    import('../bench/drive/agents/hub.js'),
    import('../bench/drive/agents/http-hub.js'),
  ]);
  const hub = new AgentHub({
    agents: role.agents,
    clock: realClock,
    timeoutMs: o.agentTimeout * 1000,
    waitMs: o.agentWait * 1000,
    note,
  });
  const at = o.coordinator ? listenAddress(o.coordinator) : { host: '127.0.0.1', port: 0 };
  const server = await serveAgents(hub, { ...at, token });
  let children: { stop(): Promise<void> } | undefined;
  if (role.local) {
    const { startLocalAgents } = await import('./agents-local.js');
    children = startLocalAgents({
      agents: role.agents,
      url: `http://127.0.0.1:${server.port}`,
      token,
      apiKey,
      options: o,
      io,
    });
  }
  return {
    hub,
    server,
    close: async () => {
      hub.finish('stopped');
      await hub.released(LEAVE_GRACE_MS);
      await children?.stop();
      await server.close();
    },
  };
}
