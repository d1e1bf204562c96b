// Worker thread entry: runs the sessions of the share it was given and reports first tokens, errors and, at the
// end, every record. Timestamps are epoch ms (performance.timeOrigin + performance.now()), the one clock every
// thread of the process shares.
import { setMaxListeners } from 'node:events';
import { parentPort } from 'node:worker_threads';
import { streamRequest } from '../../../client/stream.js';
import { realClock } from '../../../clock.js';
import type { PromptSource } from '../context.js';
import { inFlightCap } from '../in-flight-cap.js';
import { planPrompts } from '../plan-prompts.js';
import { plainSent, Sender, type Sent } from '../sender.js';
import { runShare } from '../session-loop.js';
import type { FromWorker, InitMessage, ToWorker } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('session-worker must run in a worker thread');
const post = (m: FromWorker) => port.postMessage(m);

// One level at a time; the thread itself lives on for the next levels of the run (warm JIT, open connections).
let windowOpen = false;
let closing = false;
let inflight = new AbortController();
let early = new AbortController();

async function run(init: InitMessage): Promise<void> {
  windowOpen = false;
  closing = false;
  inflight = new AbortController();
  early = new AbortController();
  setMaxListeners(0, inflight.signal, early.signal);
  const cpu0 = process.cpuUsage();
  const texts = new Map(init.slots.map((s) => [s.slot, { text: s.text, estTokens: s.estTokens }]));
  const slots: PromptSource = {
    prompt: async (_ctx, slot) => {
      const p = texts.get(slot);
      if (!p) throw new Error(`slot ${slot} has no prompt in this worker`);
      return p;
    },
  };
  const sender = new Sender(init.cfg, init.info, slots, streamRequest, realClock);
  const { spec } = init;
  const sent: Sent[] = [];
  await runShare(
    {
      sender,
      clock: realClock,
      spec,
      prompts: planPrompts(slots, spec.bank),
      inflight: inflight.signal,
      early: early.signal,
      zeroMs: init.zeroMs,
      ...(spec.maxInFlight !== undefined ? { cap: inFlightCap(spec.maxInFlight) } : {}),
    },
    {
      closing: () => closing,
      windowOpen: () => windowOpen,
      onFirstToken: (session, atMs) => post({ type: 'first', session, atMs }),
      onSent: (x) => sent.push(plainSent(x)),
      onError: (x, code) => {
        post(
          code
            ? { type: 'error', session: x.spec.slot, fatal: { code, sent: plainSent(x) } }
            : { type: 'error', session: x.spec.slot },
        );
        return code !== undefined;
      },
    },
  );
  const cpu = process.cpuUsage(cpu0);
  post({ type: 'done', sent, cpuMs: (cpu.user + cpu.system) / 1000 });
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'init')
    run(m).catch((e: unknown) =>
      post({ type: 'crash', message: e instanceof Error ? e.message : String(e) }),
    );
  else if (m.type === 'open') windowOpen = true;
  else if (m.type === 'close') {
    closing = true;
    early.abort();
    inflight.abort();
  }
});
post({ type: 'ready' });
