import type { Worker } from 'node:worker_threads';
import { BenchError } from '../../../errors.js';
import type { Sender, Sent } from '../sender.js';
import type { SessionEvents, SessionRunner } from '../runner.js';
import type { SlotSpec } from '../session-loop.js';
import { assignSlots, closePool, workerPool } from './pool.js';
import type { FromWorker, ToWorker, WorkerSlot } from './protocol.js';

let cellsStarted = 0;

// The slots' closed loops on worker threads (docs/performance.md "Workers"); the cell (decode-cell.ts) keeps the
// window in this thread. Every timestamp is epoch ms on the clock all threads share, so the records merged in
// end order mean what a single-threaded run's do.
export function workerSessions(sender: Sender, spec: SlotSpec, workers: number): SessionRunner {
  const groups = assignSlots(spec.concurrency, workers, spec.share);
  const pool = workerPool(sender, groups.length);
  const results: Array<Promise<{ sent: Sent[] }>> = [];
  let crashed: string | undefined;
  const send = (m: ToWorker) => {
    for (const t of pool.threads) t.postMessage(m);
  };
  const begin = async (events: SessionEvents) => {
    const parts = sender.workerParts();
    const slotsOf = await Promise.all(
      groups.map((g) =>
        Promise.all(
          g.map(async (slot): Promise<WorkerSlot> => ({
            slot,
            ...(await parts.prompts.prompt(spec.contextTokens, slot)),
          })),
        ),
      ),
    );
    const cellSeq = ++cellsStarted; // process-wide: ids stay unique when a pool is replaced
    await pool.ready; // the ramp starts once every worker has loaded, not during its start-up
    pool.threads.forEach((t, i) => {
      results.push(
        listen(t, events, (m) => {
          crashed ??= m;
        }),
      );
      t.postMessage({
        type: 'init',
        cfg: { ...parts.cfg, idPrefix: `${parts.cfg.idPrefix}-c${cellSeq}w${i + 1}` },
        info: parts.info,
        ...spec,
        slots: slotsOf[i]!,
      } satisfies ToWorker);
    });
  };
  return {
    async start(events) {
      try {
        await begin(events);
      } catch (e) {
        await closePool(sender);
        throw e;
      }
    },
    openWindow: () => send({ type: 'open' }),
    loops: () => pool.threads.map((t) => t.performance),
    close: () => send({ type: 'close' }),
    async finished() {
      const done = await Promise.all(results);
      if (crashed) {
        await closePool(sender);
        throw new BenchError('INTERNAL', `a slot worker of ${spec.cell} failed: ${crashed}`);
      }
      pool.idle();
      return done.flatMap((d) => d.sent).sort((a, b) => a.record.endAtMs - b.record.endAtMs);
    },
  };
}

// One worker's messages for one cell, until its records arrive (or it fails).
function listen(
  t: Worker,
  events: SessionEvents,
  onCrash: (message: string) => void,
): Promise<{ sent: Sent[] }> {
  return new Promise((resolve) => {
    const finish = (sent: Sent[]) => {
      t.off('message', onMessage);
      t.off('error', onError);
      t.off('exit', onExit);
      resolve({ sent });
    };
    const crash = (message: string) => {
      onCrash(message);
      events.endEarly();
      finish([]);
    };
    const onError = (e: Error) => crash(e.message);
    const onExit = () => finish([]);
    const onMessage = (m: FromWorker) => {
      if (m.type === 'first') events.onFirstToken(m.slot);
      else if (m.type === 'error') events.onError(m.fatal);
      else if (m.type === 'done') finish(m.sent);
      else if (m.type === 'crash') crash(m.message);
    };
    t.on('message', onMessage);
    t.on('error', onError);
    t.on('exit', onExit);
  });
}
