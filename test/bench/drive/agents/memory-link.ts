// The coordinator/agent exchange in one process: an agent's link straight to an AgentHub, each message passed as
// JSON and parsed by the wire schemas (as over HTTP), each direction delayed on the rig's clock (virtual time), so
// the protocol runs in the fast tier. kill() is a process that died (its connection closes); freeze() one that
// fell silent (nothing more in either direction, the connection left open).
import { BenchError } from '../../../../src/errors.js';
import { sleep, type Clock } from '../../../../src/clock.js';
import type { StreamFn } from '../../../../src/bench/drive/context.js';
import type { CoordinatorLink } from '../../../../src/bench/drive/agents/agent.js';
import type { AgentHub, AgentPort } from '../../../../src/bench/drive/agents/hub.js';
import { shiftRecord } from '../../../../src/bench/drive/agents/merge.js';
import {
  parseFromAgent,
  parseToAgent,
  type FromAgent,
  type Hello,
  type ToAgent,
} from '../../../../src/bench/drive/agents/protocol.js';

const wire = <T>(
  parse: (x: unknown) => { ok: true; value: T } | { ok: false; error: string },
  m: unknown,
): T => {
  const r = parse(JSON.parse(JSON.stringify(m)));
  if (!r.ok) throw new Error(`invalid message on the wire: ${r.error}`);
  return r.value;
};

export class MemoryLink implements CoordinatorLink {
  private port: AgentPort | undefined;
  private index = -1;
  private dead = false;
  private frozen = false;
  private lostFn: ((reason: string) => void) | undefined;

  constructor(
    private readonly hubNow: () => AgentHub, // the coordinator reachable now (a restarted one is another hub)
    private readonly clock: Clock, // true time (the rig's), for the delays
    private readonly delayMs: { out: number; back: number } = { out: 0.2, back: 0.2 },
  ) {}

  private hub(): AgentHub {
    return this.hubNow();
  }

  private delay(ms: number): Promise<void> {
    return sleep(this.clock, ms);
  }

  async join(hello: Hello, on: { message(m: ToAgent): void; lost(reason: string): void }): Promise<void> {
    if (this.dead || this.hub().closed) throw new Error('connection refused');
    await this.delay(this.delayMs.out);
    const port: AgentPort = {
      send: (m) => {
        if (this.frozen || this.port !== port) return;
        const copy = wire(parseToAgent, m);
        void this.delay(this.delayMs.back).then(() => {
          if (!this.frozen && this.port === port) on.message(copy);
        });
      },
      close: () => {
        if (this.port !== port) return;
        this.port = undefined;
        if (!this.frozen) on.lost('the coordinator closed the connection');
      },
    };
    this.port = port;
    this.index = hello.index;
    this.lostFn = on.lost;
    const answer = this.hub().join(
      wire((x) => ({ ok: true, value: x as Hello }), hello),
      port,
    );
    if (!answer.ok) {
      this.port = undefined;
      throw new BenchError('COORDINATOR_UNREACHABLE', `the coordinator refused the agent: ${answer.message}`);
    }
  }

  async send(messages: FromAgent[]): Promise<void> {
    if (this.frozen) return new Promise(() => {}); // a stopped process never gets its answer
    const port = this.port;
    if (!port) throw new Error('not connected');
    const copy = messages.map((m) => wire(parseFromAgent, m));
    await this.delay(this.delayMs.out);
    if (!this.frozen && this.port === port) this.hub().receive(this.index, port, copy);
  }

  async time(): Promise<{ t1: number; t2: number }> {
    if (this.frozen) return new Promise(() => {});
    await this.delay(this.delayMs.out);
    const t1 = this.hub().clock.now();
    const t2 = this.hub().clock.now();
    await this.delay(this.delayMs.back);
    return { t1, t2 };
  }

  close(): void {
    if (this.frozen) return; // a stopped process closes nothing
    const port = this.port;
    this.port = undefined;
    if (port) this.hub().gone(this.index, port, 'left');
  }

  /** The agent's process died: its connection closes at once. */
  kill(): void {
    const port = this.port;
    this.dead = true;
    this.frozen = true;
    this.port = undefined;
    if (port) this.hub().gone(this.index, port, 'closed its connection (the process ended)');
  }

  /** The agent fell silent: the connection stays, nothing more goes either way. */
  freeze(): void {
    this.frozen = true;
    this.dead = true;
  }

  get lost(): ((reason: string) => void) | undefined {
    return this.lostFn;
  }
}

/** A stream whose records are stamped on a skewed clock: the true stamps moved by `toAgent`. */
export function skewedStream(stream: StreamFn, toAgent: (t: number) => number): StreamFn {
  return async (opts) => {
    const { onFirstToken, ...rest } = opts;
    const r = await stream({
      ...rest,
      ...(onFirstToken ? { onFirstToken: (t: number) => onFirstToken(toAgent(t)) } : {}),
    });
    return shiftRecord(r, toAgent);
  };
}
