import { spawn, type ChildProcess } from 'node:child_process';
import { moduleProcessArgs } from '../worker-start.js';
import type { Options } from '../config/options.js';
import { redactSecrets } from '../secrets.js';
import type { CliIo } from './io.js';

// `run --agents K --local`: agents 1..K-1 as processes of this machine, each the same `run --agent-index I
// --coordinator URL` a cluster would start, speaking the same protocol over 127.0.0.1 (docs/distributed.md). Their
// lines reach this process's stderr prefixed with the agent; they end when the run is complete, when stop() is
// called, or when this process ends (even by kill -9: their stdin is a pipe from here, and its end stops them).

export interface LocalAgents {
  stop(): Promise<void>;
}

// This package's CLI: the compiled main.js, or from source main.ts through tsx's hooks.
const cliEntry = (): string[] =>
  moduleProcessArgs(new URL('./main.ts', import.meta.url), new URL('./main.js', import.meta.url));

const GRACE_MS = 5_000;

export function startLocalAgents(o: {
  agents: number;
  url: string;
  token: string;
  apiKey: string | undefined;
  options: Options<'run'>;
  io: CliIo;
}): LocalAgents {
  const children: ChildProcess[] = [];
  for (let i = 1; i < o.agents; i++) {
    const args = [
      ...cliEntry(),
      'run',
      '--agents',
      String(o.agents),
      '--agent-index',
      String(i),
      '--coordinator',
      o.url,
      '--agent-timeout',
      String(o.options.agentTimeout),
      '--agent-wait',
      String(o.options.agentWait),
      '--quiet',
    ];
    const env: NodeJS.ProcessEnv = {
      ...o.io.env,
      LLM_BENCH_AGENT_TOKEN: o.token,
      LLM_BENCH_AGENT_PARENT: '1',
      ...(o.apiKey ? { LLM_BENCH_API_KEY: o.apiKey } : {}),
    };
    delete env.JOB_COMPLETION_INDEX; // --agent-index says which
    delete env.SLURM_ARRAY_TASK_ID;
    // The test-only clock skew of one agent (docs/distributed.md "Testing the clocks"): LLM_BENCH_TEST_CLOCK_SKEW_<I>.
    const skew = o.io.env[`LLM_BENCH_TEST_CLOCK_SKEW_${i}`];
    if (skew !== undefined) env.LLM_BENCH_TEST_CLOCK_SKEW = skew;
    else delete env.LLM_BENCH_TEST_CLOCK_SKEW;
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'ignore', 'pipe'] });
    child.stdin?.on('error', () => undefined);
    let rest = '';
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      const lines = (rest + text).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) o.io.stderr.write(`agent ${i}: ${redactSecrets(line)}\n`);
    });
    child.on('error', (e) => o.io.stderr.write(`agent ${i}: cannot start (${e.message})\n`));
    children.push(child);
  }
  const exited = (c: ChildProcess) =>
    c.exitCode !== null || c.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => c.once('exit', () => resolve()));
  return {
    async stop() {
      // After a complete run they are on their way out; anything else: ask, then insist.
      const all = Promise.all(children.map(exited));
      const timer = (ms: number) => new Promise<'late'>((r) => setTimeout(() => r('late'), ms).unref());
      if ((await Promise.race([all, timer(2_000)])) !== 'late') return;
      for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
      if ((await Promise.race([all, timer(GRACE_MS)])) !== 'late') return;
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      await all;
    },
  };
}
