import { BenchError, type ErrorCode } from '../../errors.js';
import type { MetricsSampler } from '../../target/metrics-sampler.js';
import type { BenchClock } from '../context.js';
import type { DecodeCellRun, DecodeCellSpec } from '../decode-cell.js';
import type { Sender, Sent } from '../sender.js';
import { assignSlots, closePool, workerPool } from './pool.js';
import { errorLimit } from './slot-loop.js';
import type { FromWorker, ToWorker, WorkerSlot } from './protocol.js';

let cellsStarted = 0;

export interface WorkerCellStats {
  workers: number;
  cpuMsByWorker: number[];
}

// The decode cell of src/bench/decode-cell.ts with the slots' closed loops on worker threads. This thread keeps
// the window: it opens when every slot has reported a first token (or at the ramp timeout), closes after the
// fixed duration, then merges the workers' records in end order. Every timestamp is epoch ms on the shared
// clock, so the merged run has the meaning of a single-threaded one (docs/performance.md "Workers").
export async function runDecodeCellOnWorkers(
  sender: Sender,
  clock: BenchClock,
  spec: DecodeCellSpec,
  sampler: MetricsSampler | undefined,
  stop: AbortSignal,
  workers: number,
  stats?: WorkerCellStats,
): Promise<DecodeCellRun> {
  const { contextTokens, concurrency: n } = spec;
  const cell = `decode ${contextTokens}x${n}`;
  const parts = sender.workerParts();
  const groups = assignSlots(n, workers);
  const slotsOf = await Promise.all(
    groups.map((g) =>
      Promise.all(
        g.map(async (slot): Promise<WorkerSlot> => ({
          slot,
          ...(await parts.prompts.prompt(contextTokens, slot)),
        })),
      ),
    ),
  );
  const early = new AbortController();
  const onStop = () => early.abort();
  stop.addEventListener('abort', onStop, { once: true });
  const rampDone = new AbortController();
  const firstSeen = new Set<number>();
  let errors = 0;
  let errorLimitHit = false;
  let fatal: { code: ErrorCode; sent: Sent } | undefined;
  let crashed: string | undefined;
  const results: Array<Promise<{ sent: Sent[]; cpuMs: number }>> = [];
  const pool = workerPool(sender, groups.length);
  const threads = pool.threads;
  const cellSeq = ++cellsStarted; // process-wide: ids stay unique when a pool is replaced
  const send = (m: ToWorker) => {
    for (const t of threads) t.postMessage(m);
  };
  try {
    await pool.ready; // the ramp starts once every worker has loaded, not during its start-up
    threads.forEach((t, i) => {
      results.push(
        new Promise((resolve) => {
          const finish = (sent: Sent[], cpuMs: number) => {
            t.off('message', onMessage);
            t.off('error', onError);
            t.off('exit', onExit);
            resolve({ sent, cpuMs });
          };
          const onError = (e: Error) => {
            crashed ??= e.message;
            early.abort();
            finish([], 0);
          };
          const onExit = () => finish([], 0);
          const onMessage = (m: FromWorker) => {
            if (m.type === 'first') {
              firstSeen.add(m.slot);
              if (firstSeen.size === n) rampDone.abort();
            } else if (m.type === 'error') {
              errors += 1;
              if (m.fatal && !fatal) fatal = m.fatal;
              if (fatal || errors >= errorLimit(n)) {
                errorLimitHit = !fatal;
                early.abort();
              }
            } else if (m.type === 'done') finish(m.sent, m.cpuMs);
            else if (m.type === 'crash') {
              crashed ??= m.message;
              early.abort();
              finish([], 0);
            }
          };
          t.on('message', onMessage);
          t.on('error', onError);
          t.on('exit', onExit);
        }),
      );
      const firstTokenTimeoutMs = spec.rampTimeoutMs + spec.durationMs + 60_000;
      t.postMessage({
        type: 'init',
        cfg: { ...parts.cfg, idPrefix: `${parts.cfg.idPrefix}-c${cellSeq}w${i + 1}` },
        info: parts.info,
        cell,
        contextTokens,
        concurrency: n,
        maxOutput: spec.maxOutput,
        firstTokenTimeoutMs,
        slots: slotsOf[i]!,
      } satisfies ToWorker);
    });
    const rampOrEarly = AbortSignal.any([rampDone.signal, early.signal]);
    await clock.sleep(spec.rampTimeoutMs, rampOrEarly);
    const rampTimedOut = firstSeen.size < n;
    const windowOpenMs = clock.now();
    send({ type: 'open' });
    sampler?.start(windowOpenMs);
    await clock.sleep(spec.durationMs, early.signal);
    const closeMs = clock.now();
    send({ type: 'close' });
    const samples = sampler ? await sampler.stop() : [];
    const done = await Promise.all(results);
    if (crashed) throw new BenchError('INTERNAL', `a slot worker of ${cell} failed: ${crashed}`);
    if (stats) {
      stats.workers = threads.length;
      stats.cpuMsByWorker = done.map((d) => d.cpuMs);
    }
    const sent = done.flatMap((d) => d.sent).sort((a, b) => a.record.endAtMs - b.record.endAtMs);
    const run: DecodeCellRun = {
      window: { openMs: windowOpenMs, closeMs },
      sent,
      rampTimedOut,
      errorLimitHit,
      samples,
      interrupted: stop.aborted,
    };
    if (fatal) run.fatal = fatal;
    return run;
  } catch (e) {
    await closePool(sender);
    throw e;
  } finally {
    stop.removeEventListener('abort', onStop);
    if (crashed) await closePool(sender);
    else pool.idle();
  }
}
