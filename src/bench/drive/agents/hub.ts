import { sleep, type Clock } from '../../../clock.js';
import type { Sender } from '../sender.js';
import type { DriveSpec, SessionRunner } from '../runner.js';
import { agentSessions } from './agent-sessions.js';
import {
  PROTOCOL_VERSION,
  type AgentSenderConfig,
  type FromAgent,
  type Hello,
  type ToAgent,
} from './protocol.js';
import type { WorkerInfo } from '../workers/protocol.js';

// The coordinator's side of the agents (docs/distributed.md): who has joined, whether each is still heard from, and
// the slot runner of each decode cell over them (agent-sessions.ts). Transport-free: a transport (http-hub.ts, or a
// test's in-memory link) calls join / receive / gone and gives each agent a port to send on.

export interface AgentPort {
  send(m: ToAgent): void; // in order; a message to a port that is gone is dropped
  close(): void;
}

// What the cell's runner listens to on one agent while the cell lasts.
export interface MemberListener {
  message(m: FromAgent): void;
  lost(reason: string): void;
}

export interface Member {
  index: number;
  host: string;
  port: AgentPort;
  heardMs: number; // coordinator clock: the last message from it
  prompts: { contextTokens: number; slots: Set<number> }; // the slot texts it holds
  listener?: MemberListener;
}

export interface HubOptions {
  agents: number; // K: the coordinator is agent 0, the others 1..K-1
  clock: Clock;
  timeoutMs: number; // an agent silent this long is lost (--agent-timeout)
  waitMs: number; // the first decode cell waits this long for every agent to join (--agent-wait)
  note?: (line: string) => void; // progress: waiting, joins, losses
}

export type JoinAnswer = { ok: true } | { ok: false; status: number; message: string };

export class AgentHub {
  private readonly members = new Map<number, Member>();
  private welcome: Extract<ToAgent, { type: 'welcome' }> | undefined;
  private seq = 0;
  private waited = false;
  private readonly watch = new AbortController();
  private joined: Array<() => void> = [];
  private ended: string | undefined; // the run's end status, once finish() is called
  private empty: Array<() => void> = [];
  readonly clock: Clock;

  constructor(readonly o: HubOptions) {
    this.clock = o.clock;
    void this.watchdog();
  }

  // ---- the transport's side ----

  join(hello: Hello, port: AgentPort): JoinAnswer {
    const k = this.o.agents;
    if (this.ended === 'complete') {
      // A late agent (restarted, or scheduled after the others) has nothing left to drive: it is told so, not
      // left retrying for --agent-wait.
      port.send({ type: 'done', status: 'complete' });
      return { ok: true };
    }
    if (this.ended) return { ok: false, status: 503, message: "the coordinator's run has ended" };
    if (hello.protocol !== PROTOCOL_VERSION)
      return refuse(`agent protocol ${hello.protocol}, this coordinator speaks ${PROTOCOL_VERSION}`);
    if (hello.agents !== k)
      return refuse(`the agent was started with --agents ${hello.agents}, this run has ${k}`);
    if (hello.index < 1 || hello.index >= k)
      return refuse(`agent index ${hello.index} is not one of 1..${k - 1} (0 is the coordinator)`);
    const runId = this.welcome?.runId;
    if (hello.runId !== undefined && runId !== undefined && hello.runId !== runId)
      return refuse(`the agent served run ${hello.runId}, this coordinator runs ${runId}`);
    const old = this.members.get(hello.index);
    if (old) this.drop(old, 'was replaced by a new connection from the same index');
    const m: Member = {
      index: hello.index,
      host: hello.host,
      port,
      heardMs: this.clock.now(),
      prompts: { contextTokens: -1, slots: new Set() },
    };
    this.members.set(hello.index, m);
    if (this.welcome) port.send(this.welcome);
    this.o.note?.(`agent ${m.index} (${m.host}) joined: ${this.members.size} of ${k - 1}`);
    for (const f of this.joined.splice(0)) f();
    return { ok: true };
  }

  /** Messages from an agent; false when it is not (or no longer) a member on this port. */
  receive(index: number, port: AgentPort | undefined, messages: readonly FromAgent[]): boolean {
    const m = this.members.get(index);
    if (!m || (port !== undefined && m.port !== port)) return false;
    m.heardMs = this.clock.now();
    for (const msg of messages) if (msg.type !== 'beat') m.listener?.message(msg);
    return true;
  }

  /** The agent's connection ended (its process died, or the network). */
  gone(index: number, port: AgentPort, reason: string): void {
    const m = this.members.get(index);
    if (m && m.port === port) this.drop(m, reason);
  }

  // ---- the run's side ----

  /** The run is open: every agent, joined or to come, gets what it needs to send the run's requests. */
  open(o: { runId: string; cfg: AgentSenderConfig; info: WorkerInfo }): void {
    this.welcome = {
      type: 'welcome',
      runId: o.runId,
      agents: this.o.agents,
      cfg: o.cfg,
      info: o.info,
      timeoutMs: this.o.timeoutMs,
    };
    for (const m of this.members.values()) m.port.send(this.welcome);
  }

  live(): Member[] {
    return [...this.members.values()].sort((a, b) => a.index - b.index);
  }

  nextSeq(): number {
    return ++this.seq;
  }

  // The first decode cell of this coordinator process waits for every agent (they start in any order, and may be
  // slower to schedule than the probe and the prefill points); later cells go on with those there.
  async waitForAgents(signal: AbortSignal): Promise<void> {
    if (this.waited) return;
    this.waited = true;
    const want = this.o.agents - 1;
    const until = this.clock.now() + this.o.waitMs;
    while (this.members.size < want && !signal.aborted) {
      const left = until - this.clock.now();
      if (left <= 0) break;
      this.o.note?.(`waiting for agents: ${this.members.size} of ${want} joined`);
      const ac = new AbortController();
      this.joined.push(() => ac.abort());
      await sleep(this.clock, left, AbortSignal.any([ac.signal, signal]));
    }
    if (this.members.size < want) {
      const missing = Array.from({ length: want }, (_, i) => i + 1).filter((i) => !this.members.has(i));
      this.o.note?.(`agents ${missing.join(', ')} did not join; the cells are dealt over those that did`);
    }
  }

  /** The session runner of one decode cell over the coordinator and every agent there now. */
  sessions(sender: Sender, clock: Clock, spec: DriveSpec, workers: number | undefined): SessionRunner {
    return agentSessions(this, sender, clock, spec, workers);
  }

  /** The run ended: 'complete' releases the agents; any other status leaves them waiting for a resumed run. */
  finish(status: string): void {
    if (this.ended) return;
    this.ended = status;
    for (const m of this.members.values()) m.port.send({ type: 'done', status });
    this.watch.abort();
    if (this.members.size === 0) this.emptied();
  }

  /**
   * After a complete run: resolves once every agent has left (each closes its connection on 'done'), or after
   * graceMs. A transport closes its connections only then: closing them at once could end one before its 'done'
   * was read. After any other end the agents stay for a resumed run, so it resolves at once.
   */
  async released(graceMs: number): Promise<void> {
    if (this.ended !== 'complete' || this.members.size === 0) return;
    const ac = new AbortController();
    this.empty.push(() => ac.abort());
    await sleep(this.clock, graceMs, ac.signal);
  }

  /** The run has ended: no agent joins any more (a transport closes its listener). */
  get closed(): boolean {
    return this.ended !== undefined;
  }

  private drop(m: Member, reason: string): void {
    this.members.delete(m.index);
    m.port.close();
    // After the run's end agents leave as they were told to: no news.
    if (!this.ended) this.o.note?.(`agent ${m.index} (${m.host}) ${reason}`);
    m.listener?.lost(reason);
    if (this.ended && this.members.size === 0) this.emptied();
  }

  private emptied(): void {
    for (const f of this.empty.splice(0)) f();
  }

  // Pings keep the agents' own watchdogs quiet; an agent not heard from for the timeout is dropped.
  private async watchdog(): Promise<void> {
    const every = Math.max(10, this.o.timeoutMs / 4);
    while (!this.watch.signal.aborted) {
      await sleep(this.clock, every, this.watch.signal);
      if (this.watch.signal.aborted) return;
      const now = this.clock.now();
      for (const m of [...this.members.values()]) {
        const silent = now - m.heardMs;
        if (silent > this.o.timeoutMs)
          this.drop(m, `fell silent (nothing for ${(silent / 1000).toFixed(1)} s)`);
        else m.port.send({ type: 'ping' });
      }
    }
  }
}

const refuse = (message: string): JoinAnswer => ({ ok: false, status: 409, message });
