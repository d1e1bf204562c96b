import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RequestLine } from '../../src/results/io.js';
import type { DecodeCell } from '../../src/results/schema.js';
import type { SimHandle, TruthRecord } from '../../src/sim/index.js';
import { cliCommand, REPO_ROOT, runCli, runCliInProcess, unwrapped } from '../helpers/cli.js';
import { fastFlags, readRun, runDirs, startTestSim, tempDir, truthById } from './run-helpers.js';

// `run --agents K --local` as a user runs it: real agent processes over the coordinator's HTTP endpoint on
// 127.0.0.1, against the sim, checked against the sim's ground truth (docs/distributed.md). The protocol's logic
// in virtual time: test/bench/drive/agents/.

const STEP_OVERRIDES = {
  decodeStepMs: [
    [1, 10],
    [16, 10],
  ] as Array<[number, number]>,
};

function flags(baseUrl: string, out: string, k: number, concurrency: string, duration = '2'): string[] {
  return [
    'run',
    ...fastFlags(baseUrl, out),
    '--duration',
    duration,
    '--ramp-timeout',
    '5',
    '--contexts',
    '1K',
    '--prefill-contexts',
    '1K',
    '--concurrency',
    concurrency,
    '--max-output',
    '128',
    '--agents',
    String(k),
    '--local',
  ];
}

// Truth tokens the sim sent in [open, close): what a client with no delay would count in the window.
function truthTokens(truth: TruthRecord[], open: number, close: number): number {
  let n = 0;
  for (const t of truth) for (const [at, k] of t.chunks) if (at >= open && at < close) n += k;
  return n;
}

function agentOf(id: string): number {
  return Number(/-a(\d+)\w{4}-\d+$/.exec(id)?.[1] ?? 0);
}

// Each request's chunks are the truth's, token for token; the cell's window holds what the truth's does. The client
// counts by arrival, the truth by send: a chunk arriving in [open, close) was sent in [open - d, close - d) for its
// own receive delay d (offsets included), so the window's tokens lie between the truth's over the narrowest and
// the widest such interval, and the total rate is within 1% of the truth's over [open, close) unless the delays
// at the edges, or the agents' stated clock uncertainty, say more (a busy 2-core machine: docs/distributed.md
// "Tests"). A chunk the client never read has a delay too: past the instant its request was aborted.
function checkCell(
  cell: DecodeCell,
  lines: RequestLine[],
  truth: Map<string, TruthRecord>,
  all: TruthRecord[],
) {
  const mine = lines.filter(
    (l) => l.cell === `decode 1024x${cell.concurrency}` && (l.phase === 'ramp' || l.phase === 'window'),
  );
  let checked = 0;
  const delays: number[] = [];
  const unread: Array<{ sentMs: number; endMs: number }> = [];
  for (const l of mine) {
    const t = truth.get(l.requestId);
    if (!t) continue; // aborted at the close before the sim saw it
    expect(
      l.chunks.map((c) => c[1]),
      l.requestId,
    ).toEqual(t.chunks.slice(0, l.chunks.length).map((c) => c[1]));
    if (l.status === 'ok') expect(l.outputTokens).toBe(t.outputTokens);
    l.chunks.forEach(([at], i) => delays.push(at - t.chunks[i]![0])); // read back as epoch ms
    for (const [sentMs] of t.chunks.slice(l.chunks.length)) unread.push({ sentMs, endMs: l.endAtMs });
    checked += 1;
  }
  expect(checked).toBeGreaterThan(cell.concurrency);
  const open = cell.windowOpenMs!;
  const close = cell.windowCloseMs!;
  // Stamps of agents are placed on the coordinator's clock within the uncertainty the cell states
  // (windowUncertaintyMs, half the best round trip).
  const u = cell.agents?.windowUncertaintyMs ?? 0;
  // Every client read on to the window's close: none aborted its requests before it (an agent closes on the
  // coordinator's 'close', sent after that instant; it once closed on its own timer, before a late one).
  for (const l of mine)
    if (l.errorKind === 'aborted') expect(l.endAtMs, l.requestId).toBeGreaterThanOrEqual(close - u);
  const dMin = Math.min(...delays);
  const dMax = Math.max(...delays);
  // A chunk sent before its request was aborted but never read (its client's loop stalled across the close: the
  // close timer runs before the sockets are read) would have been stamped after the abort; that lower bound on
  // its delay joins dMax for the narrowest interval, which must hold every chunk the window could miss.
  const dLate = Math.max(dMax, ...unread.filter((c) => c.sentMs < c.endMs).map((c) => c.endMs - c.sentMs));
  const lo = truthTokens(all, open - dMin + u, close - dLate - u);
  const hi = truthTokens(all, open - dMax - u, close - dMin + u);
  expect(cell.outputTokens!).toBeGreaterThanOrEqual(lo);
  expect(cell.outputTokens!).toBeLessThanOrEqual(hi);
  const exact = truthTokens(all, open, close);
  const rate = (exact * 1000) / (close - open);
  const slack = Math.max(0.01, (hi - lo) / exact);
  const why = `${cell.totalTokensPerS} vs ${rate.toFixed(1)} tok/s; delays ${dMin.toFixed(1)}..${dMax.toFixed(1)} ms`;
  expect(Math.abs(cell.totalTokensPerS! / rate - 1), why).toBeLessThanOrEqual(slack);
  return mine;
}

// A port free on 127.0.0.1 now, for agent 0 to listen on (the others must be told it before it starts).
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('run --agents K --local', () => {
  let sim: SimHandle | undefined;
  afterAll(async () => sim?.close());

  for (const k of [1, 2, 4]) {
    it(`K = ${k}: every request as the truth says, the total rate within 1% of the truth's`, async () => {
      sim ??= await startTestSim({ overrides: STEP_OVERRIDES });
      const out = tempDir(`agents-${k}`);
      const r = await runCli(flags(sim.baseUrl, out, k, '4,8'), { timeoutMs: 180_000 });
      expect(r.stderr).not.toMatch(/error \[/);
      // The agents leave a complete run as told: their leaving is no loss to report.
      expect(r.stderr).not.toMatch(/closed its connection/);
      expect(r.code).toBe(0);
      const { result, lines } = readRun(runDirs(out)[0]!);
      expect(result.config.agents).toBe(k);
      const truth = truthById(sim);
      for (const cell of result.decode) {
        expect(['Valid', 'Requests queued'], cell.queueEvidence).toContain(cell.status);
        const mine = checkCell(cell, lines, truth, sim.truth());
        const agents = new Set(mine.map((l) => agentOf(l.requestId)));
        expect([...agents].sort()).toEqual(Array.from({ length: k }, (_, i) => i));
        if (k > 1) expect(cell.agents!.count).toBe(k);
      }
    });
  }

  it('agents on clocks off by +50 ms, -50 ms and drifting 1 ms/s: their stamps land on the coordinator timeline', async () => {
    sim ??= await startTestSim({ overrides: STEP_OVERRIDES });
    const out = tempDir('agents-skew');
    const r = await runCli(flags(sim.baseUrl, out, 4, '8'), {
      timeoutMs: 180_000,
      env: {
        LLM_BENCH_TEST_CLOCK_SKEW_1: '50',
        LLM_BENCH_TEST_CLOCK_SKEW_2: '-50',
        LLM_BENCH_TEST_CLOCK_SKEW_3: '-20,1',
      },
    });
    expect(r.stderr).not.toMatch(/error \[/);
    expect(r.code).toBe(0);
    const { result, lines } = readRun(runDirs(out)[0]!);
    const cell = result.decode[0]!;
    const truth = truthById(sim);
    checkCell(cell, lines, truth, sim.truth());
    const [one, two, three] = cell.agents!.clocks;
    const u = cell.agents!.windowUncertaintyMs;
    expect(Math.abs(one!.before!.offsetMs + 50)).toBeLessThanOrEqual(one!.before!.uncertaintyMs + 0.5);
    expect(Math.abs(two!.before!.offsetMs - 50)).toBeLessThanOrEqual(two!.before!.uncertaintyMs + 0.5);
    expect(three!.before!.offsetMs - three!.after!.offsetMs).toBeGreaterThan(1); // it drifted over the cell
    // Every agent's arrival stamps, moved by its offsets, come after the sim sent the chunk (give or take the
    // offset's uncertainty), and soon after: unmoved, agent 2's would come 50 ms before it was sent.
    for (const agent of [1, 2, 3]) {
      const delays: number[] = [];
      for (const l of lines.filter((x) => x.cell === 'decode 1024x8' && agentOf(x.requestId) === agent)) {
        const t = truth.get(l.requestId);
        if (!t) continue;
        l.chunks.forEach(([at], i) => delays.push(at - t.chunks[i]![0])); // read back as epoch ms
      }
      delays.sort((a, b) => a - b);
      expect(delays.length).toBeGreaterThan(50);
      expect(delays[Math.floor(delays.length / 2)]!, `agent ${agent}`).toBeGreaterThan(-u - 1);
      expect(delays[Math.floor(delays.length / 2)]!, `agent ${agent}`).toBeLessThan(25);
    }
  });

  it('an agent killed mid-cell fails that cell, named; the next cell is measured by the others', async () => {
    await sim?.close();
    sim = await startTestSim({ overrides: STEP_OVERRIDES }); // its truth holds this run's requests alone
    const out = tempDir('agents-kill');
    const { command, args } = cliCommand();
    const child = spawn(command, [...args, ...flags(sim.baseUrl, out, 3, '6,9', '4')], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Agent 2's first decode request of the 6-stream cell ended (128 tokens at 10 ms: 1.3 s after the ramp), so
    // the 4 s window is open; half a second later it is well inside it.
    const deadline = Date.now() + 120_000;
    while (
      !sim.truth().some((t) => agentOf(t.requestId ?? '') === 2 && t.outputTokens > 1) &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500));
    const pids = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(child.pid)], { encoding: 'utf8' });
    const victim = pids.split('\n').find((l) => /--agent-index 2\b/.test(l));
    expect(victim, pids).toBeDefined();
    process.kill(Number(victim!.trim().split(/\s+/)[0]), 'SIGKILL');
    expect(await exited, stderr).toBe(0);
    const { result } = readRun(runDirs(out)[0]!);
    expect(result.status).toBe('complete');
    const [six, nine] = result.decode;
    expect(six!.status).toBe('Failed');
    expect(six!.error).toMatch(/^agent 2 \(.+\) closed its connection .* s into the window of 1K x6$/);
    expect(nine!.status, nine!.error).not.toBe('Failed');
    expect(nine!.agents!.count).toBe(2);
    expect(unwrapped(stderr)).toMatch(/agent 2 \(.+\) closed its connection/);
  });

  // As a scheduler starts them (docs/distributed.md "Anywhere else"): K copies of one command, each its own index,
  // none the parent of another. Agents 1..K-1 once lost the coordinator as it closed after a complete run, waited
  // --agent-wait for it and exited 15: a Slurm task FAILED, a Kubernetes pod restarted until the Job failed.
  it('three separate processes, --agent-index 0..2: a complete result and every process exits 0', async () => {
    await sim?.close();
    sim = await startTestSim({ overrides: STEP_OVERRIDES });
    const out = tempDir('agents-apart');
    const coordinator = `http://127.0.0.1:${await freePort()}`;
    const common = flags(sim.baseUrl, out, 3, '3,6').filter((f) => f !== '--local');
    const env = { LLM_BENCH_AGENT_TOKEN: 'integration-token-of-this-run' };
    const runs = [0, 1, 2].map((i) =>
      runCli([...common, '--agent-index', String(i), '--coordinator', coordinator, '--agent-wait', '30'], {
        env,
        timeoutMs: 180_000,
      }).then((r) => ({ ...r, endedAt: Date.now() })),
    );
    const [zero, one, two] = await Promise.all(runs);
    for (const [i, r] of [zero!, one!, two!].entries()) {
      expect(r.stderr, `agent ${i}`).not.toMatch(/error \[|lost the coordinator/);
      expect(r.code, `agent ${i}: ${r.stderr}`).toBe(0);
    }
    expect(one!.stdout).toMatch(/^agent 1: run \S+ complete, 2 cells driven$/m);
    expect(two!.stdout).toMatch(/^agent 2: run \S+ complete, 2 cells driven$/m);
    // After a complete run the agents' leaving is no loss.
    expect(zero!.stderr).not.toMatch(/closed its connection/);
    const { result } = readRun(runDirs(out)[0]!);
    expect(result.status).toBe('complete');
    expect(result.decode.map((c) => c.status)).not.toContain('Failed');
    expect(result.decode.map((c) => c.agents?.count)).toEqual([3, 3]);
    expect(one!.stdout).toContain(`run ${result.runId} complete`);
    // Nobody waited out --agent-wait (30 s) for a coordinator that had finished.
    for (const r of [one!, two!]) expect(r.endedAt - zero!.endedAt).toBeLessThan(15_000);
  });
});

// One task of a scheduler's job: the printed script run by a shell, as the scheduler would, with its environment.
function runTask(
  shell: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine?: (line: string) => void,
): Promise<{ code: number | null; stdout: string; stderr: string; endedAt: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      for (const line of d.split('\n')) if (line) onLine?.(line);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, endedAt: Date.now() });
    });
  });
}

// The tool as the scheduler's tasks start it: this working tree through tsx.
const TOOL = `${process.execPath} --import tsx ${join(REPO_ROOT, 'src/cli/main.ts')}`;

// What `deploy SCHEDULER` prints for a run here: agent 0 on `port`, the tool from this working tree.
async function printJob(scheduler: string, runArgs: string[], port: number, extra: string[] = []) {
  const d = await runCliInProcess([
    'deploy',
    scheduler,
    ...runArgs,
    ...['--port', String(port), '--tool-command', TOOL, '--name', 'bench', ...extra],
  ]);
  expect(d.code, d.stderr).toBe(0);
  return d.stdout;
}

// What `deploy` prints, run as the scheduler would run it on this one machine (docs/distributed.md): every task
// must exit 0 after a complete run (a Slurm task that does not is FAILED; a Kubernetes pod restarts until the Job
// fails), and the result must reach the place the docs say.
describe('deploy: the printed job, run by a shell as its scheduler would', () => {
  let sim: SimHandle | undefined;
  afterAll(async () => sim?.close());

  const runFlags = (baseUrl: string, out: string) =>
    flags(baseUrl, out, 3, '3')
      .slice(1)
      .filter((f) => f !== '--local')
      .concat('--agent-wait', '30');

  it('Slurm: three array tasks exit 0 and the result lands in --out', async () => {
    sim = await startTestSim({ overrides: STEP_OVERRIDES });
    const dir = tempDir('slurm');
    const out = join(dir, 'shared-out');
    const port = await freePort();
    const script = join(dir, 'bench.sbatch');
    writeFileSync(script, await printJob('slurm', runFlags(sim.baseUrl, out), port));
    // agent 0's node name, as `hostname -f` gives it, is this machine's loopback address here
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'hostname'), '#!/bin/sh\necho 127.0.0.1\n');
    chmodSync(join(bin, 'hostname'), 0o755);
    const env = (i: number) => ({
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      SLURM_ARRAY_TASK_ID: String(i),
      SLURM_ARRAY_JOB_ID: '4242',
      SLURM_SUBMIT_DIR: dir,
      LLM_BENCH_AGENT_TOKEN: 'slurm-token-of-this-run',
    });
    const tasks = await Promise.all([0, 1, 2].map((i) => runTask('bash', [script], env(i))));
    for (const [i, t] of tasks.entries()) expect(t.code, `task ${i}: ${t.stderr}`).toBe(0);
    const { result } = readRun(runDirs(out)[0]!);
    expect(result.status).toBe('complete');
    expect(result.decode.map((c) => [c.status, c.agents?.count])).toEqual([['Valid', 3]]);
    expect(tasks[0]!.stdout).toContain(`result: ${join(out, result.runId, 'result.json')}`);
  });

  it('Kubernetes: every pod exits 0, agent 0 after printing the kubectl cp that copies the result out', async () => {
    sim ??= await startTestSim({ overrides: STEP_OVERRIDES });
    const dir = tempDir('k8s');
    const port = await freePort();
    const printed = await printJob(
      'k8s',
      runFlags(sim.baseUrl, 'unused').filter((f, i, a) => f !== '--out' && a[i - 1] !== '--out'),
      port,
      ['--keep-results', '120'],
    );
    const { parseAllDocuments } = await import('yaml');
    const job = parseAllDocuments(printed)[1]!.toJSON() as {
      spec: { template: { spec: { containers: Array<{ command: string[] }> } } };
    };
    const script = job.spec.template.spec.containers[0]!.command[2]!;
    // Each pod's own emptyDir at /results, and bench-0.bench resolving to agent 0: here a folder per pod and the
    // loopback address. Nothing else of the printed script is changed.
    const pod = (i: number) => {
      const results = join(dir, `pod-${i}`, 'results');
      mkdirSync(results, { recursive: true });
      return {
        script: script
          .replaceAll('/results', results)
          .replace(`http://bench-0.bench:${port}`, `http://127.0.0.1:${port}`),
        results,
        env: {
          JOB_COMPLETION_INDEX: String(i),
          POD_NAME: `bench-${i}-x7k2p`,
          POD_NAMESPACE: 'perf',
          LLM_BENCH_AGENT_TOKEN: 'k8s-token-of-this-run',
        },
      };
    };
    const pods = [0, 1, 2].map(pod);
    const zero = pods[0]!;
    const runId = /--run-id (\S+)/.exec(script)![1]!;
    let copyLine: string | undefined;
    const tasks = pods.map((p, i) =>
      runTask('/bin/sh', ['-c', p.script], p.env, (line) => {
        if (i === 0 && line.includes('kubectl cp')) copyLine ??= line.trim();
      }),
    );
    // The user's side: once agent 0 prints how to copy the result, copy it, then release agent 0 as it says.
    const deadline = Date.now() + 170_000;
    while (!copyLine && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(copyLine).toBe(`kubectl cp -n perf bench-0-x7k2p:${zero.results}/${runId} ./${runId}`);
    expect(existsSync(join(zero.results, runId, 'result.json'))).toBe(true);
    writeFileSync(join(zero.results, `${runId}.copied`), '');
    const ended = await Promise.all(tasks);
    for (const [i, t] of ended.entries()) expect(t.code, `pod ${i}: ${t.stderr}`).toBe(0);
    expect(ended[0]!.stdout).toContain(
      `then let the Job complete: kubectl exec -n perf bench-0-x7k2p -- touch ${zero.results}/${runId}.copied`,
    );
    const { result } = readRun(join(zero.results, runId));
    expect(result.status).toBe('complete');
    expect(result.decode.map((c) => c.agents?.count)).toEqual([3]);
    // released, agent 0 did not sit out its 120 s
    expect(ended[0]!.endedAt - Math.max(ended[1]!.endedAt, ended[2]!.endedAt)).toBeLessThan(60_000);
  });
});
