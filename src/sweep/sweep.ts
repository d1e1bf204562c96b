import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BenchRun, type BenchRunDeps, type RunOutcome } from '../bench/run.js';
import type { RunSettings } from '../bench/settings.js';
import { isoTime, realClock, type Clock } from '../clock.js';
import { BenchError, isBenchError } from '../errors.js';
import { cliCommand } from '../invocation.js';
import type { ProgressSink } from '../progress/sink.js';
import { RESULT_FILE } from '../results/io.js';
import { readResult } from '../results/read.js';
import type { RunResult } from '../results/schema.js';
import { writeSweepFile } from '../results/sweep-io.js';
import type { SweepFile, SweepRun, SweepServer } from '../results/sweep-schema.js';
import { buildCommand, type ServerCommand } from './command.js';
import type { BenchSet } from './configs.js';
import type { ParamSet } from './params.js';
import { waitReady, type ReadyOptions, type ReadyOutcome } from './ready.js';
import {
  describeExit,
  freePort,
  ServerProcess,
  type LaunchOptions,
  type ServerHandle,
} from './server-process.js';
import { stopRecorded } from './stop-group.js';

// The sweep's loop (docs/sweep.md): per server configuration, kill what an earlier sweep left running, start the
// server, wait until it is ready, measure each of its runs with the same runner as `run`, stop it, go on. A
// configuration that fails is kept as Failed with the reason and its log's last lines; sweep.json is saved at
// every change, and each run checkpoints every cell, so a kill -9 loses at most the cell in flight.

export interface SweepPlan {
  dir: string;
  file: SweepFile; // new, or read back for --resume
  template: string; // --serve-cmd as given (secrets are only redacted where it is shown)
  serveSets: ReadonlyMap<string, ParamSet>; // by server key: the values the commands are built from
  benchSets: ReadonlyMap<string, BenchSet | undefined>; // by run key
  settingsFor(
    run: SweepRun,
    bench: BenchSet | undefined,
    server: { port: number; command: string },
  ): RunSettings;
  apiKey?: string | undefined;
  readyTimeoutS: number;
  stopTimeoutS: number;
}

// What a sweep runs (BenchRun, or a test's).
export interface SweepBench {
  start(): Promise<RunOutcome>;
  interrupt(): unknown;
}

// The seams BenchRun has, for the loop: a test runs it in virtual time with the sim's engine as the servers.
export interface SweepDeps {
  say(line: string): void; // the sweep's own lines (stderr)
  progress(run: SweepRun): ProgressSink; // the runner's view of one run
  writeRunReports?: (dir: string, result: RunResult) => Promise<string[]>;
  clock?: Clock; // sweep.json's times (default: the real clock)
  freePort?: () => Promise<number>;
  launch?: (cmd: ServerCommand, o: LaunchOptions & { server: SweepServer }) => ServerHandle;
  ready?: (o: ReadyOptions) => Promise<ReadyOutcome>;
  bench?: (settings: RunSettings, deps: BenchRunDeps) => SweepBench; // default: a BenchRun
  stopLeftover?: typeof stopRecorded; // a server an earlier sweep left running
}

export interface SweepOutcome {
  dir: string;
  file: SweepFile;
  failed: SweepRun[];
}

const newMarker = () => randomBytes(8).toString('hex');

export class Sweep {
  private readonly stopper = new AbortController();
  private current: SweepBench | undefined;
  private server: ServerHandle | undefined;
  private readonly onExit = () => this.server?.killNow();

  constructor(
    private readonly plan: SweepPlan,
    private readonly deps: SweepDeps,
  ) {}

  get interrupted(): boolean {
    return this.stopper.signal.aborted;
  }

  // Ctrl-C: the run in flight keeps its finished cells, the server is stopped, the sweep can be resumed.
  interrupt(): void {
    this.stopper.abort();
    this.current?.interrupt();
  }

  // A second Ctrl-C: the server group is killed at once.
  killServerNow(): void {
    this.server?.killNow();
  }

  private get file(): SweepFile {
    return this.plan.file;
  }

  private now(): string {
    return isoTime(this.deps.clock ?? realClock);
  }

  private save(): void {
    writeSweepFile(this.plan.dir, this.file);
  }

  async start(): Promise<SweepOutcome> {
    process.on('exit', this.onExit); // an unexpected exit still leaves no server behind
    try {
      this.file.status = 'running';
      this.save();
      const servers = this.file.servers;
      for (let i = 0; i < servers.length && !this.interrupted; i++) await this.serve(servers[i]!, i);
      this.file.status = this.interrupted ? 'interrupted' : 'complete';
      this.file.finishedAt = this.now();
      this.save();
    } finally {
      process.off('exit', this.onExit);
    }
    return {
      dir: this.plan.dir,
      file: this.file,
      failed: this.file.runs.filter((r) => r.status === 'failed'),
    };
  }

  private runsOf(s: SweepServer): SweepRun[] {
    return this.file.runs.filter((r) => r.server === s.key);
  }

  private async serve(s: SweepServer, index: number): Promise<void> {
    const where = `[${index + 1}/${this.file.servers.length}] ${s.name}`;
    await this.stopLeftover(s, where);
    const todo = this.runsOf(s).filter((r) => !this.finished(r));
    if (todo.length === 0) return;
    const set = this.plan.serveSets.get(s.key)!;
    const port = await (this.deps.freePort ?? freePort)();
    const cmd = buildCommand(this.plan.template, set, port, this.plan.apiKey);
    const marker = newMarker();
    const launch = this.deps.launch ?? ((c: ServerCommand, o: LaunchOptions) => new ServerProcess(c, o));
    const server = launch(cmd, {
      port,
      logPath: join(this.plan.dir, s.log),
      marker,
      graceS: this.plan.stopTimeoutS,
      server: s,
    });
    this.server = server;
    s.command = cmd.shown;
    s.process = {
      pid: server.pid,
      ...(server.startTicks !== undefined ? { startTicks: server.startTicks } : {}),
      marker,
      port,
      startedAt: this.now(),
    };
    this.save();
    this.deps.say(`${where}: starting the server on port ${port} (log: ${join(this.plan.dir, s.log)})`);
    this.deps.say(`  ${cmd.shown}`);
    try {
      const ready = await (this.deps.ready ?? waitReady)({
        port,
        timeoutS: this.plan.readyTimeoutS,
        gone: server.gone,
        stop: this.stopper.signal,
        apiKey: this.plan.apiKey,
      });
      if (!ready.ready) {
        if (ready.why === 'interrupted') return;
        const reason =
          ready.why === 'gone'
            ? `the server ${describeExit(server.exitedWith ?? { code: null, signal: null })} before it answered /health or /v1/models`
            : `the server did not answer /health or /v1/models within ${this.plan.readyTimeoutS} s (--server-ready-timeout)`;
        server.note(reason);
        this.fail(todo, reason, server.tail());
        this.deps.say(`${where}: failed: ${reason}`);
        return;
      }
      this.deps.say(`${where}: ready after ${ready.seconds.toFixed(1)} s (${ready.path})`);
      for (const [i, run] of todo.entries()) {
        if (this.interrupted) break;
        if (await this.measure(run, server, { port, command: cmd.shown })) continue;
        // the server died during this run: the runs after it had no server either
        const reason = `the server ${describeExit(server.exitedWith ?? { code: null, signal: null })} before this run`;
        this.fail(todo.slice(i + 1), reason, server.tail());
        break;
      }
    } finally {
      this.deps.say(`${where}: stopping the server`);
      const stopped = await server.stop(this.plan.stopTimeoutS);
      if (stopped.lingering > 0)
        this.deps.say(
          `warning: ${stopped.lingering} processes of the server group ${server.pid} did not exit`,
        );
      else delete s.process;
      this.server = undefined;
      this.save();
    }
  }

  // An earlier sweep of this folder was killed with -9 while its server ran (and the watchdog with it).
  private async stopLeftover(s: SweepServer, where: string): Promise<void> {
    if (!s.process) return;
    const found = await (this.deps.stopLeftover ?? stopRecorded)(s.process, this.plan.stopTimeoutS);
    if (found > 0)
      this.deps.say(
        `${where}: stopped a server left running by an earlier sweep (pid ${s.process.pid}, ${found} processes)`,
      );
    delete s.process;
    this.save();
  }

  private finished(r: SweepRun): boolean {
    if (r.status === 'complete') return true;
    // killed between the run's last save and the sweep's: the result says it is done
    const path = join(this.plan.dir, r.key, RESULT_FILE);
    if (existsSync(path) && safeStatus(path) === 'complete') {
      r.status = 'complete';
      return true;
    }
    return false;
  }

  private fail(runs: readonly SweepRun[], reason: string, tail: string[]): void {
    for (const r of runs) {
      r.status = 'failed';
      r.reason = reason;
      r.logTail = tail;
      r.finishedAt = this.now();
    }
    this.save();
  }

  // One run against a ready server; false when the server went away during it.
  private async measure(
    run: SweepRun,
    server: ServerHandle,
    at: { port: number; command: string },
  ): Promise<boolean> {
    const dir = join(this.plan.dir, run.key);
    const settings = this.plan.settingsFor(run, this.plan.benchSets.get(run.key), at);
    if (existsSync(join(dir, RESULT_FILE))) settings.resume = dir;
    run.status = 'running';
    run.startedAt ??= this.now();
    delete run.reason;
    delete run.logTail;
    this.save();
    const benchDeps: BenchRunDeps = {
      progress: this.deps.progress(run),
      ...(this.deps.writeRunReports ? { writeReports: this.deps.writeRunReports } : {}),
    };
    const bench = this.deps.bench ? this.deps.bench(settings, benchDeps) : new BenchRun(settings, benchDeps);
    this.current = bench;
    // The leader's exit is the server's death, unless it had already exited (a server that forks away from
    // its shell): then the group's end is.
    const death = server.exitedWith === undefined ? server.exited : server.gone;
    let died = false;
    void death.then(() => {
      died = true;
      bench.interrupt();
    });
    let out: RunOutcome | undefined;
    let error: unknown;
    try {
      out = await bench.start();
    } catch (e) {
      error = e;
    } finally {
      this.current = undefined;
    }
    run.finishedAt = this.now();
    if (died && !this.interrupted) {
      const cells = out?.result.decode.length ?? 0;
      const reason = `the server ${describeExit(server.exitedWith ?? { code: null, signal: null })} during the run (${cells} cells kept)`;
      server.note(reason);
      this.fail([run], reason, server.tail());
      this.deps.say(`  failed: ${reason}`);
      return false;
    }
    if (this.interrupted) {
      run.status = 'interrupted';
    } else if (error !== undefined) {
      // The run saved what it measured; CONTEXT_TOO_LONG comes after a complete result (the cells that fit).
      const complete = safeStatus(join(dir, RESULT_FILE)) === 'complete';
      run.status = complete ? 'complete' : 'failed';
      if (!complete) {
        run.reason = isBenchError(error) ? `${error.code}: ${error.message}` : String(error);
        run.logTail = server.tail();
        this.deps.say(`  failed: ${run.reason}`);
      }
      if (!isBenchError(error)) throw error;
    } else {
      run.status = 'complete';
      this.deps.say(`  done: ${out!.result.decode.length} cells (${out!.resultPath})`);
    }
    this.save();
    return true;
  }
}

function safeStatus(path: string): string | undefined {
  try {
    return readResult(path).status;
  } catch {
    return undefined;
  }
}

export const interruptedError = (dir: string): BenchError =>
  new BenchError('INTERRUPTED', `sweep interrupted; finished runs and cells are kept in ${dir}.`, {
    hint: `Continue it with \`${cliCommand('sweep', '--resume', dir)}\`.`,
  });
