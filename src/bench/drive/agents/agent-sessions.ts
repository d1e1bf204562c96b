import type { ClientLoad } from '../../../client/self-check.js';
import { sleep, type Clock } from '../../../clock.js';
import type { Sender, Sent } from '../sender.js';
import { inThreadSessions } from '../in-thread.js';
import { planLevel } from '../../../load/sessions.js';
import { slotsOfShare } from '../plan-prompts.js';
import type { CellAgentsRun, ClockOffset, DriveSpec, SessionEvents, SessionRunner } from '../runner.js';
import { shareSize, splitCap, type Share } from '../share.js';
import { workerSessions } from '../workers/worker-sessions.js';
import type { AgentHub, Member } from './hub.js';
import { mergeShares } from './merge.js';
import type { AgentSlot, FromAgent } from './protocol.js';
import { agentShares } from './shard.js';

// One level over the coordinator and the agents (docs/distributed.md "A cell"): the coordinator's own share of the
// sessions runs here as any level's do (this thread, or --workers threads), each agent's share on its machine. The
// agents get the level's spec (each builds its sessions' plans from it) and their slots' prompts, and measure their
// clocks; the level's zero is one instant on the coordinator's timeline, which each agent reaches on its own clock,
// and a scheduled level's arrivals are offsets from it, so each agent sends its arrivals at coordinator time
// corrected by its offset; their first tokens and errors count here as local ones do (a closed level's window
// opens on the last first token, the error limit counts every session); the window's bounds go out in coordinator
// time and each agent closes on the 'close' sent once the window has closed here (a scheduled level's sessions may
// all end before it); then they measure their clocks again and send their records, which are moved onto the
// coordinator's timeline and merged (merge.ts).

interface Remote {
  m: Member;
  share: Share;
  sessions: number; // how many the share holds
  sent: Sent[];
  before?: ClockOffset;
  after?: ClockOffset;
  load?: ClientLoad;
  ready: Deferred;
  finished: Deferred;
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  done: boolean;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  const d: Deferred = {
    promise,
    done: false,
    resolve: () => {
      d.done = true;
      resolve();
    },
  };
  return d;
}

// How long before the ramp the start goes out: enough for the message to reach every agent (twice the slowest
// round trip seen while measuring the clocks) and for it to set up its loops.
const START_LEAD_MS = 100;

export function agentSessions(
  hub: AgentHub,
  sender: Sender,
  clock: Clock,
  spec: DriveSpec,
  workers: number | undefined,
): SessionRunner {
  const seq = hub.nextSeq();
  let remotes: Remote[] = [];
  let local: SessionRunner | undefined;
  let events: SessionEvents | undefined;
  let lost: string | undefined;
  let openMs: number | undefined;
  let closed = false;

  const loseRemote = (r: Remote, reason: string) => {
    if (r.finished.done) return;
    lost ??= `agent ${r.m.index} (${r.m.host}) ${reason} ${whenIn(clock, openMs, spec.label)}`;
    r.ready.resolve();
    r.finished.resolve();
    events?.endEarly();
  };
  const sendAll = (make: () => Parameters<Member['port']['send']>[0]) => {
    for (const r of remotes) if (!r.finished.done) r.m.port.send(make());
  };

  async function begin(ev: SessionEvents): Promise<number> {
    events = ev;
    await hub.waitForAgents(ev.early);
    const members = hub.live();
    const total = planLevel(spec.level).sessions;
    const shares = agentShares(total, [0, ...members.map((m) => m.index)]);
    remotes = remotesOf(members, shares, total);
    const capOf = capSplit(spec, remotes.length + 1);
    const mine: DriveSpec = { ...spec, share: shares.get(0)!, ...capOf(0) };
    local = localRunner(sender, clock, mine, workers);
    for (const r of remotes)
      r.m.listener = {
        message: (msg) => onAgentMessage(r, msg, seq, events, loseRemote),
        lost: (reason) => loseRemote(r, reason),
      };
    const { prompts } = sender.workerParts();
    for (const [i, r] of remotes.entries()) {
      const slots = await slotsFor(r, spec, prompts);
      const theirs: DriveSpec = { ...spec, share: r.share, ...capOf(i + 1) };
      r.m.port.send({ type: 'level', seq, spec: theirs, ...workersOf(workers), slots });
    }
    await Promise.all(remotes.map((r) => r.ready.promise));
    if (lost || ev.early.aborted) return clock.now(); // it ends before its start (runLevel goes straight to close)
    const atMs = clock.now() + startLeadMs(remotes);
    sendAll(() => ({ type: 'start', seq, atMs }));
    await sleep(clock, atMs - clock.now(), ev.early);
    await local.start(ev, atMs);
    return atMs;
  }

  return {
    start: begin,
    openWindow(w) {
      openMs = w.openMs;
      local?.openWindow(w);
      sendAll(() => ({ type: 'open', seq, openMs: w.openMs, closeMs: w.closeMs }));
    },
    close() {
      if (closed) return;
      closed = true;
      local?.close();
      sendAll(() => ({ type: 'close', seq }));
    },
    loops: () => local?.loops?.() ?? [],
    async finished() {
      const mine = local ? await local.finished() : [];
      await Promise.all(remotes.map((r) => r.finished.promise));
      for (const r of remotes) delete r.m.listener;
      return mergeShares(mine, remoteShares(remotes));
    },
    agents: () => agentsRun(remotes, lost),
  };
}

const workersOf = (w: number | undefined) => (w !== undefined && w > 1 ? { workers: w } : {});

// When an agent was lost, for its one line: before the window, or how far into it.
function whenIn(clock: Clock, openMs: number | undefined, label: string): string {
  return openMs === undefined
    ? `before the window of ${label} opened`
    : `${((clock.now() - openMs) / 1000).toFixed(1)} s into the window of ${label}`;
}

// The cap is split like the sessions, in proportion (docs/distributed.md "Sessions"): driver 0 is this process,
// driver i + 1 the i-th remote.
function capSplit(spec: DriveSpec, drivers: number): (i: number) => Pick<DriveSpec, 'maxInFlight'> {
  const caps = spec.maxInFlight === undefined ? undefined : splitCap(spec.maxInFlight, drivers);
  return (i) => (caps ? { maxInFlight: caps[i]! } : {});
}

// This process's share: on --workers threads, else this thread.
function localRunner(
  sender: Sender,
  clock: Clock,
  mine: DriveSpec,
  workers: number | undefined,
): SessionRunner {
  return (workers ?? 1) > 1 ? workerSessions(sender, mine, workers!) : inThreadSessions(sender, clock, mine);
}

// An agent's message of this level: its clock before, a first token or an error (counted as local ones), its
// records, and its end (lost where it crashed or sent fewer records than it counted).
function onAgentMessage(
  r: Remote,
  msg: FromAgent,
  seq: number,
  events: SessionEvents | undefined,
  lose: (r: Remote, reason: string) => void,
): void {
  if (!('seq' in msg) || msg.seq !== seq) return; // a message of an earlier cell
  if (msg.type === 'ready') {
    r.before = msg.before;
    r.ready.resolve();
  } else if (msg.type === 'first') events?.onFirstToken(msg.session);
  else if (msg.type === 'error') events?.onError(msg.fatal);
  else if (msg.type === 'records') r.sent.push(...msg.sent);
  else if (msg.type === 'finished') {
    if (msg.after) r.after = msg.after;
    if (msg.load) r.load = msg.load;
    if (msg.crash) return lose(r, `failed: ${msg.crash}`);
    if (msg.records !== r.sent.length) return lose(r, `sent ${r.sent.length} of its ${msg.records} records`);
    r.finished.resolve();
  }
}

// The agents that hold a share of the level's sessions (an agent past the sessions gets none).
function remotesOf(members: readonly Member[], shares: ReadonlyMap<number, Share>, total: number): Remote[] {
  return members
    .filter((m) => shares.has(m.index))
    .map((m) => {
      const share = shares.get(m.index)!;
      return {
        m,
        share,
        sessions: shareSize(share, total),
        sent: [],
        ready: deferred(),
        finished: deferred(),
      };
    });
}

// The prompts of an agent's slots, each text sent once: a slot the agent already holds at this context goes
// without it.
async function slotsFor(
  r: Remote,
  spec: DriveSpec,
  prompts: ReturnType<Sender['workerParts']>['prompts'],
): Promise<AgentSlot[]> {
  const held = r.m.prompts;
  const wanted = slotsOfShare(spec.level, r.share);
  const context = wanted[0]?.contextTokens ?? -1;
  if (held.contextTokens !== context) {
    held.contextTokens = context;
    held.slots.clear();
  }
  const slots: AgentSlot[] = [];
  for (const { contextTokens, slot } of wanted) {
    const p = await prompts.prompt(contextTokens, slot);
    slots.push({ slot, estTokens: p.estTokens, ...(held.slots.has(slot) ? {} : { text: p.text }) });
    held.slots.add(slot);
  }
  return slots;
}

function startLeadMs(remotes: readonly Remote[]): number {
  const slowest = Math.max(0, ...remotes.map((r) => 4 * (r.before?.uncertaintyMs ?? 0)));
  return START_LEAD_MS + slowest;
}

// The agents' records with their clocks, to be moved onto the coordinator's timeline (an agent that never
// measured its clock sent none).
function remoteShares(remotes: readonly Remote[]) {
  return remotes.flatMap((r) =>
    r.before
      ? [{ agent: r.m.index, sent: r.sent, before: r.before, ...(r.after ? { after: r.after } : {}) }]
      : [],
  );
}

function agentsRun(remotes: readonly Remote[], lost: string | undefined): CellAgentsRun {
  return {
    remotes: remotes.map((r) => ({
      agent: r.m.index,
      host: r.m.host,
      slots: r.sessions,
      ...(r.before ? { before: r.before } : {}),
      ...(r.after ? { after: r.after } : {}),
    })),
    loads: remotes.flatMap((r) => (r.load ? [{ agent: r.m.index, load: r.load }] : [])),
    ...(lost ? { lost } : {}),
  };
}
