import { setMaxListeners } from 'node:events';
import { BenchError } from '../../../errors.js';
import { sleep, type Clock } from '../../../clock.js';
import type { PromptSource, StreamFn } from '../context.js';
import { plainSent, Sender, type Sent } from '../sender.js';
import { inThreadSessions } from '../in-thread.js';
import {
  clientThreads,
  type CellMonitor,
  type ClockOffset,
  type DriveSpec,
  type SessionRunner,
} from '../runner.js';
import { workerSessions } from '../workers/worker-sessions.js';
import { bestOffset, OFFSET_SAMPLES, type TimeSample } from './offsets.js';
import { PROTOCOL_VERSION, type FromAgent, type Hello, type ToAgent } from './protocol.js';

// An agent (docs/distributed.md): a process that drives its share of each decode cell's slots for the coordinator.
// It probes nothing and decides nothing: it joins, receives the run's request settings, and per cell measures its
// clock against the coordinator's, runs its slots' closed loops on the schedule it is given, and sends its records.

// The agent's side of the transport (http-link.ts, or a test's in-memory link).
export interface CoordinatorLink {
  // Resolves once the coordinator has taken the agent; messages then arrive in order until lost() is called once.
  // Rejects with a BenchError when refused (wrong token, wrong run), with any other error when unreachable.
  join(hello: Hello, on: { message(m: ToAgent): void; lost(reason: string): void }): Promise<void>;
  send(messages: FromAgent[]): Promise<void>; // in order; rejects when the coordinator is gone
  time(): Promise<{ t1: number; t2: number }>; // the coordinator's receive and reply stamps
  close(): void;
}

export interface AgentOptions {
  index: number;
  agents: number;
  host: string;
  link: CoordinatorLink;
  clock: Clock;
  stream: StreamFn;
  apiKey?: string; // the agent's own (its Secret); never sent by the coordinator
  baseUrl?: string; // the agent's own view of the server, when it differs from the coordinator's
  waitMs: number; // how long to keep trying to reach the coordinator (at the start and after losing it)
  monitor?: (threads: number) => CellMonitor | undefined; // the client's self-check over each window
  note?: (line: string) => void;
  signal?: AbortSignal; // stops the agent (SIGTERM)
}

const RETRY_MS = 1000;
const RECORDS_PER_MESSAGE = 500;

/** Runs until the coordinator says the run is complete. Throws COORDINATOR_UNREACHABLE after waitMs without it. */
export async function runAgent(o: AgentOptions): Promise<{ cells: number; runId?: string }> {
  let runId: string | undefined;
  let cells = 0;
  let until = o.clock.now() + o.waitMs;
  let lastError = 'no answer';
  let lostBy: string | undefined; // why the last session ended, when it ended without the run's completion
  const suffix = Math.random().toString(36).slice(2, 6); // request ids stay unique across rejoins
  while (!o.signal?.aborted) {
    const session = new Session(o, suffix);
    const hello: Hello = {
      protocol: PROTOCOL_VERSION,
      index: o.index,
      agents: o.agents,
      host: o.host,
      ...(runId ? { runId } : {}),
    };
    try {
      await o.link.join(hello, session);
    } catch (e) {
      if (e instanceof BenchError) throw e; // refused: retrying cannot help
      lastError = e instanceof Error ? e.message : String(e);
      if (o.clock.now() >= until) break;
      await sleep(o.clock, RETRY_MS, o.signal);
      continue;
    }
    o.note?.(`agent ${o.index} of ${o.agents}: joined the coordinator`);
    const end = await session.ended(o.signal);
    o.link.close();
    runId = session.runId ?? runId;
    cells += session.cells;
    if (end.status === 'complete') return { cells, ...(runId ? { runId } : {}) };
    lastError = end.reason;
    lostBy = end.reason;
    o.note?.(`agent ${o.index}: ${end.reason}; waiting for the coordinator`);
    until = o.clock.now() + o.waitMs;
  }
  if (o.signal?.aborted) return { cells, ...(runId ? { runId } : {}) };
  const waited = `${(o.waitMs / 1000).toFixed(0)} s`;
  const why = lostBy
    ? `${lostBy}, and no coordinator came back for ${waited}`
    : `no coordinator for ${waited}`;
  throw new BenchError('COORDINATOR_UNREACHABLE', `agent ${o.index}: ${why} (${lastError}).`, {
    hint: 'Check --coordinator and that agent 0 runs; docs/distributed.md "When something fails".',
  });
}

type End = { status: 'complete' } | { status: 'lost'; reason: string };

// One connection to the coordinator, from join to 'done' or loss.
class Session {
  runId: string | undefined;
  cells = 0;
  private sender: Sender | undefined;
  private readonly texts = new Map<number, { text: string; estTokens: number }>();
  private textsContext = -1;
  private queue = Promise.resolve();
  private cell: AgentCell | undefined;
  private heardMs: number;
  private timeoutMs = 10_000;
  private finish!: (e: End) => void;
  private readonly over: Promise<End>;
  private readonly stop = new AbortController();

  constructor(
    private readonly o: AgentOptions,
    private readonly suffix: string,
  ) {
    this.heardMs = o.clock.now();
    this.over = new Promise((r) => (this.finish = r));
  }

  message(m: ToAgent): void {
    this.heardMs = this.o.clock.now();
    if (m.type === 'ping') return;
    if (m.type === 'welcome') this.runId = m.runId; // what the run is, even if it ends before the queue gets here
    // At once, not behind the queue: the coordinator's connection may end right after it, and its end must not
    // read as the coordinator lost (agents of a complete run once waited --agent-wait and exited 15).
    if (m.type === 'done') {
      if (m.status === 'complete') this.end('complete', 'complete');
      else this.end(`the coordinator's run ended ${m.status}`);
      return;
    }
    // In order, each after the one before (a cell's 'start' waits for its 'ready'); the cell itself runs apart.
    this.queue = this.queue
      .then(() => this.handle(m))
      .catch((e: unknown) => this.end(`failed: ${String(e)}`));
  }

  lost(reason: string): void {
    this.end(`lost the coordinator: ${reason}`);
  }

  async ended(signal?: AbortSignal): Promise<End> {
    const onAbort = () => this.end('stopped');
    signal?.addEventListener('abort', onAbort, { once: true });
    void this.beat();
    const e = await this.over;
    signal?.removeEventListener('abort', onAbort);
    return e;
  }

  private end(reason: string, status: 'lost' | 'complete' = 'lost'): void {
    if (this.stop.signal.aborted) return;
    this.stop.abort();
    this.cell?.close();
    this.finish(status === 'complete' ? { status } : { status, reason });
  }

  private post(messages: FromAgent[]): Promise<void> {
    return this.o.link.send(messages).catch((e: unknown) => {
      this.end(`cannot reach the coordinator: ${e instanceof Error ? e.message : String(e)}`);
    });
  }

  // Heartbeats, and the coordinator's silence: its pings come every quarter of the timeout.
  private async beat(): Promise<void> {
    while (!this.stop.signal.aborted) {
      await sleep(this.o.clock, this.timeoutMs / 4, this.stop.signal);
      if (this.stop.signal.aborted) return;
      const silent = this.o.clock.now() - this.heardMs;
      if (silent > this.timeoutMs)
        return this.end(`the coordinator fell silent (nothing for ${(silent / 1000).toFixed(1)} s)`);
      void this.post([{ type: 'beat' }]);
    }
  }

  private async handle(m: ToAgent): Promise<void> {
    if (this.stop.signal.aborted) return;
    if (m.type === 'welcome') {
      this.runId = m.runId;
      this.timeoutMs = m.timeoutMs;
      const cfg = {
        ...m.cfg,
        idPrefix: `${m.cfg.idPrefix}-a${this.o.index}${this.suffix}`,
        ...(this.o.apiKey ? { apiKey: this.o.apiKey } : {}),
        ...(this.o.baseUrl ? { baseUrl: this.o.baseUrl } : {}),
      };
      const prompts: PromptSource = {
        prompt: async (_ctx, slot) => {
          const p = this.texts.get(slot);
          if (!p) throw new Error(`slot ${slot} has no prompt on agent ${this.o.index}`);
          return p;
        },
      };
      this.sender = new Sender(cfg, m.info, prompts, this.o.stream, this.o.clock);
    } else if (m.type === 'level') {
      if (!this.sender) throw new Error('a level before the welcome');
      const context = m.slots.length > 0 ? (m.spec.level.contextTokens ?? -1) : -1;
      if (context !== this.textsContext) {
        this.texts.clear();
        this.textsContext = context;
      }
      for (const s of m.slots) {
        if (s.text !== undefined) this.texts.set(s.slot, { text: s.text, estTokens: s.estTokens });
        else if (!this.texts.has(s.slot)) throw new Error(`no prompt for slot ${s.slot}`);
      }
      this.cell?.close();
      this.cell = new AgentCell(this.o, this.sender, m.seq, m.spec, m.workers, (x) => this.post(x));
      const before = await this.cell.measureClock();
      await this.post([{ type: 'ready', seq: m.seq, before }]);
    } else if (m.type === 'start' && this.cell?.seq === m.seq) {
      this.cells += 1;
      this.cell.start(m.atMs);
    } else if (m.type === 'open' && this.cell?.seq === m.seq) this.cell.open(m.openMs, m.closeMs);
    else if (m.type === 'close' && this.cell?.seq === m.seq) this.cell.close();
  }
}

// One cell on the agent: its clock before, its share's loops on the coordinator's schedule, its clock after, and
// its records. Nothing is sent during the window but first tokens and errors: the records go after the close, so
// the agent's own traffic to the coordinator does not compete with the stamps it takes.
class AgentCell {
  private runner: SessionRunner | undefined;
  private before: ClockOffset | undefined;
  private closed = false;
  private readonly early = new AbortController();
  private monitor: CellMonitor | undefined;
  private load: ReturnType<CellMonitor['stop']> | undefined;

  constructor(
    private readonly o: AgentOptions,
    private readonly sender: Sender,
    readonly seq: number,
    private readonly spec: DriveSpec,
    private readonly workers: number | undefined,
    private readonly post: (m: FromAgent[]) => Promise<void>,
  ) {
    setMaxListeners(0, this.early.signal);
  }

  async measureClock(): Promise<ClockOffset> {
    const samples: TimeSample[] = [];
    for (let i = 0; i < OFFSET_SAMPLES; i++) {
      const t0 = this.o.clock.now();
      const { t1, t2 } = await this.o.link.time();
      samples.push({ t0, t1, t2, t3: this.o.clock.now() });
    }
    const best = bestOffset(samples)!;
    this.before ??= best;
    return best;
  }

  start(atMs: number): void {
    const clock = this.o.clock;
    const mine = this.spec;
    this.runner =
      (this.workers ?? 1) > 1
        ? workerSessions(this.sender, mine, this.workers!)
        : inThreadSessions(this.sender, clock, mine);
    const runner = this.runner;
    void (async () => {
      let crash: string | undefined;
      let sent: Sent[] = [];
      try {
        await sleep(clock, this.local(atMs) - clock.now(), this.early.signal);
        if (!this.closed)
          await runner.start(
            {
              early: this.early.signal,
              endEarly: () => {
                crash ??= 'its session runner stopped';
                this.close();
              },
              onFirstToken: (session) => void this.post([{ type: 'first', seq: this.seq, session }]),
              onError: (f) => {
                const fatal = f ? { fatal: { code: f.code, sent: plainSent(f.sent) } } : {};
                void this.post([{ type: 'error', seq: this.seq, ...fatal }]);
                return f !== undefined; // a fatal refusal stops the session; the coordinator decides for the level
              },
            },
            this.local(atMs),
          );
        sent = await runner.finished(); // a runner closed before it started has no records
        // A scheduled level's sessions may all end before the coordinator's close: the load is over the window.
        if (this.monitor && !this.load) this.load = this.monitor.stop();
      } catch (e) {
        crash = e instanceof Error ? e.message : String(e);
        this.close();
      }
      const records = sent.map(plainSent);
      for (let i = 0; i < records.length; i += RECORDS_PER_MESSAGE)
        await this.post([
          { type: 'records', seq: this.seq, sent: records.slice(i, i + RECORDS_PER_MESSAGE) },
        ]);
      const after = await this.measureClock().catch(() => undefined);
      await this.post([
        {
          type: 'finished',
          seq: this.seq,
          records: records.length,
          ...(after ? { after } : {}),
          ...(this.load ? { load: this.load } : {}),
          ...(crash ? { crash } : {}),
        },
      ]);
    })();
  }

  // No close timer of its own: the coordinator's window closes when its timer runs (late on a busy host), and
  // its 'close' message leaves after that instant, so closing on it reads every chunk that reached this agent
  // inside the window (docs/distributed.md "Schedule in absolute time"); what comes after is outside it.
  open(openMs: number, closeMs: number): void {
    if (this.closed || !this.runner) return;
    this.runner.openWindow({ openMs: this.local(openMs), closeMs: this.local(closeMs) });
    this.monitor = this.o.monitor?.(clientThreads(this.workers));
    this.monitor?.start(this.runner.loops?.() ?? []);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.monitor) this.load = this.monitor.stop();
    this.runner?.close();
    this.early.abort();
  }

  // Coordinator time -> this clock, by the offset measured before the cell.
  private local(coordinatorMs: number): number {
    return coordinatorMs - (this.before?.offsetMs ?? 0);
  }
}
