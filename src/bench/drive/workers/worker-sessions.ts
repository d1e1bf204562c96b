import type { Worker } from 'node:worker_threads';
import { nowMs } from '../../../clock.js';
import { BenchError } from '../../../errors.js';
import { planLevel } from '../../../load/sessions.js';
import { slotsOfShare } from '../plan-prompts.js';
import type { DriveSpec, SessionEvents, SessionRunner } from '../runner.js';
import type { Sender, Sent } from '../sender.js';
import { ALL, splitCap, splitShare } from '../share.js';
import { closePool, workerPool } from './pool.js';
import type { FromWorker, ToWorker, WorkerSlot } from './protocol.js';

let levelsStarted = 0;

// How long the workers get to build their plans before a level's zero, so its first arrivals are not late.
const WORKER_LEAD_MS = 50;

// The sessions on worker threads (docs/performance.md "Workers"), dealt round robin over them; the caller
// (run-level.ts) keeps the window in this thread. Each worker builds its share's plans from the spec itself
// (src/load planLevel: plain data, seeded): a closed level's sessions are unbounded, so there are no plans to ship,
// and the spec is no larger than the plans it makes. Every timestamp is epoch ms on the clock all threads share,
// so the records merged in end order mean what a single-threaded run's do.
export function workerSessions(sender: Sender, spec: DriveSpec, workers: number): SessionRunner {
  const total = planLevel(spec.level).sessions;
  const shares = splitShare(spec.share ?? ALL, workers, total);
  // The cap is split like the sessions: each worker holds its part of it (docs/workloads.md "Load models").
  const caps = spec.maxInFlight === undefined ? undefined : splitCap(spec.maxInFlight, shares.length);
  const pool = workerPool(sender, shares.length);
  const results: Array<Promise<{ sent: Sent[] }>> = [];
  let crashed: string | undefined;
  const send = (m: ToWorker) => {
    for (const t of pool.threads) t.postMessage(m);
  };
  const begin = async (events: SessionEvents, atMs: number | undefined): Promise<number> => {
    const parts = sender.workerParts();
    const slotsOf = await Promise.all(
      shares.map((sh) =>
        Promise.all(
          slotsOfShare(spec.level, sh).map(async ({ contextTokens, slot }): Promise<WorkerSlot> => ({
            slot,
            ...(await parts.prompts.prompt(contextTokens, slot)),
          })),
        ),
      ),
    );
    const levelSeq = ++levelsStarted; // process-wide: ids stay unique when a pool is replaced
    await pool.ready; // the ramp starts once every worker has loaded, not during its start-up
    const zeroMs = atMs ?? nowMs() + WORKER_LEAD_MS;
    pool.threads.forEach((t, i) => {
      results.push(
        listen(t, events, (m) => {
          crashed ??= m;
        }),
      );
      t.postMessage({
        type: 'init',
        spec: { ...spec, share: shares[i]!, ...(caps ? { maxInFlight: caps[i]! } : {}) },
        zeroMs,
        cfg: { ...parts.cfg, idPrefix: `${parts.cfg.idPrefix}-c${levelSeq}w${i + 1}` },
        info: parts.info,
        slots: slotsOf[i]!,
      } satisfies ToWorker);
    });
    return zeroMs;
  };
  return {
    async start(events, atMs) {
      try {
        return await begin(events, atMs);
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
        throw new BenchError('INTERNAL', `a session worker of ${spec.cell} failed: ${crashed}`);
      }
      pool.idle();
      return done.flatMap((d) => d.sent).sort((a, b) => a.record.endAtMs - b.record.endAtMs);
    },
  };
}

// One worker's messages for one level, until its records arrive (or it fails).
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
      if (m.type === 'first') events.onFirstToken(m.session);
      else if (m.type === 'error') events.onError(m.fatal);
      else if (m.type === 'done') finish(m.sent);
      else if (m.type === 'crash') crash(m.message);
    };
    t.on('message', onMessage);
    t.on('error', onError);
    t.on('exit', onExit);
  });
}
