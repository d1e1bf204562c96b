import type { ClientLoad } from '../../../client/self-check.js';
import { contextLabel } from '../../../format/labels.js';
import { sleep, type Clock } from '../../../clock.js';
import type { Sender, Sent } from '../sender.js';
import { inThreadSessions } from '../in-thread.js';
import type { CellAgentsRun, ClockOffset, SessionEvents, SessionRunner } from '../runner.js';
import type { SlotSpec } from '../session-loop.js';
import { workerSessions } from '../workers/worker-sessions.js';
import type { AgentHub, Member } from './hub.js';
import { mergeShares } from './merge.js';
import type { AgentSlot, FromAgent } from './protocol.js';
import { shareSlots } from './shard.js';

// One decode cell over the coordinator and the agents (docs/distributed.md "A cell"): the coordinator's own share
// runs here as any cell's slots do (this thread, or --workers threads), each agent's share on its machine. The
// agents get their slots' prompts and measure their clocks; the ramp starts at one instant on the coordinator's
// timeline, which each agent reaches on its own clock; their first tokens and errors count here as local ones do
// (the window opens on the last first token, the error limit counts every slot); the window's bounds go out in
// coordinator time and each agent closes on the 'close' sent once the window has closed here; then they measure
// their clocks again and send their records, which are moved onto the coordinator's timeline and merged (merge.ts).

interface Remote {
  m: Member;
  slots: number[];
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
  spec: SlotSpec,
  workers: number | undefined,
): SessionRunner {
  const seq = hub.nextSeq();
  let remotes: Remote[] = [];
  let local: SessionRunner | undefined;
  let events: SessionEvents | undefined;
  let lost: string | undefined;
  let openMs: number | undefined;
  let closed = false;
  const label = `${contextLabel(spec.contextTokens)} x${spec.concurrency}`;

  const when = () =>
    openMs === undefined
      ? `before the window of ${label} opened`
      : `${((clock.now() - openMs) / 1000).toFixed(1)} s into the window of ${label}`;
  const loseRemote = (r: Remote, reason: string) => {
    if (r.finished.done) return;
    lost ??= `agent ${r.m.index} (${r.m.host}) ${reason} ${when()}`;
    r.ready.resolve();
    r.finished.resolve();
    events?.endEarly();
  };
  const onMessage = (r: Remote, msg: FromAgent) => {
    if (!('seq' in msg) || msg.seq !== seq) return; // a message of an earlier cell
    if (msg.type === 'ready') {
      r.before = msg.before;
      r.ready.resolve();
    } else if (msg.type === 'first') events?.onFirstToken(msg.slot);
    else if (msg.type === 'error') events?.onError(msg.fatal);
    else if (msg.type === 'records') r.sent.push(...msg.sent);
    else if (msg.type === 'finished') {
      if (msg.after) r.after = msg.after;
      if (msg.load) r.load = msg.load;
      if (msg.crash) return loseRemote(r, `failed: ${msg.crash}`);
      if (msg.records !== r.sent.length)
        return loseRemote(r, `sent ${r.sent.length} of its ${msg.records} records`);
      r.finished.resolve();
    }
  };
  const sendAll = (make: () => Parameters<Member['port']['send']>[0]) => {
    for (const r of remotes) if (!r.finished.done) r.m.port.send(make());
  };

  async function begin(ev: SessionEvents): Promise<void> {
    events = ev;
    await hub.waitForAgents(ev.early);
    const members = hub.live();
    const shares = shareSlots(spec.concurrency, [0, ...members.map((m) => m.index)]);
    remotes = members
      .filter((m) => (shares.get(m.index) ?? []).length > 0)
      .map((m) => ({ m, slots: shares.get(m.index)!, sent: [], ready: deferred(), finished: deferred() }));
    const mine = { ...spec, share: shares.get(0)! };
    local =
      (workers ?? 1) > 1 ? workerSessions(sender, mine, workers!) : inThreadSessions(sender, clock, mine);
    for (const r of remotes)
      r.m.listener = { message: (msg) => onMessage(r, msg), lost: (reason) => loseRemote(r, reason) };
    const { prompts } = sender.workerParts();
    for (const r of remotes) {
      const held = r.m.prompts;
      if (held.contextTokens !== spec.contextTokens) {
        held.contextTokens = spec.contextTokens;
        held.slots.clear();
      }
      const slots: AgentSlot[] = [];
      for (const slot of r.slots) {
        const p = await prompts.prompt(spec.contextTokens, slot);
        slots.push({ slot, estTokens: p.estTokens, ...(held.slots.has(slot) ? {} : { text: p.text }) });
        held.slots.add(slot);
      }
      r.m.port.send({ type: 'cell', seq, spec: { ...spec, share: r.slots }, ...workersOf(workers), slots });
    }
    await Promise.all(remotes.map((r) => r.ready.promise));
    if (lost || ev.early.aborted) return; // the cell ends before its ramp (runDecodeCell goes straight to close)
    const slowest = Math.max(0, ...remotes.map((r) => 4 * (r.before?.uncertaintyMs ?? 0)));
    const lead = START_LEAD_MS + slowest;
    const atMs = clock.now() + lead;
    sendAll(() => ({ type: 'start', seq, atMs }));
    await sleep(clock, atMs - clock.now(), ev.early);
    await local.start(ev);
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
      const shares = remotes.flatMap((r) =>
        r.before
          ? [{ agent: r.m.index, sent: r.sent, before: r.before, ...(r.after ? { after: r.after } : {}) }]
          : [],
      );
      return mergeShares(mine, shares);
    },
    agents(): CellAgentsRun {
      return {
        remotes: remotes.map((r) => ({
          agent: r.m.index,
          host: r.m.host,
          slots: r.slots.length,
          ...(r.before ? { before: r.before } : {}),
          ...(r.after ? { after: r.after } : {}),
        })),
        loads: remotes.flatMap((r) => (r.load ? [{ agent: r.m.index, load: r.load }] : [])),
        ...(lost ? { lost } : {}),
      };
    },
  };
}

const workersOf = (w: number | undefined) => (w !== undefined && w > 1 ? { workers: w } : {});
