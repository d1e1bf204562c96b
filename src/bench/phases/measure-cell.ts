import { clientSaturated } from '../../client/self-check.js';
import { cliCommand } from '../../invocation.js';
import { BenchError } from '../../errors.js';
import { isoTime, type Clock } from '../../clock.js';
import { contextLabel } from '../../format/labels.js';
import { decodeKey } from '../../results/cell-key.js';
import type { DecodeCell } from '../../results/schema.js';
import type { QueueReference } from '../../stats/queue.js';
import type { MetricsSampler } from '../../target/metrics-sampler.js';
import { buildDecodeCell, type CellRequest } from '../cell-result.js';
import { pinEstimatedChunks, withClientFigures, type Tokenize } from '../cell-client.js';
import { runDecodeCell } from '../decode-cell.js';
import { clientThreads, type CellMonitor } from '../drive/runner.js';
import type { Sender, Sent } from '../drive/sender.js';
import type { RunSettings } from '../settings.js';
import { settle } from '../settle.js';
import { warmUp, warmUpWarnings } from '../warmup.js';
import type { Measured } from './outcome.js';
import { cellAgentsField } from '../drive/agents/cell-agents.js';
import type { AgentHub } from '../drive/agents/hub.js';
import type { PromptBankSnapshot } from '../../prompts/bank.js';

export interface CellEnv {
  sender: Sender;
  clock: Clock;
  sampler: MetricsSampler | undefined;
  stop: AbortSignal;
  settings: RunSettings;
  dir: string;
  // What the run is doing now; `keeping` names the cell whose window closed whole: an interrupt in this phase
  // finishes and keeps it rather than aborting it.
  phase: (label: string, keeping?: string) => void;
  monitor?: (threads: number) => CellMonitor | undefined; // the client's self-check over each window
  tokenize?: Tokenize; // pins estimated per-chunk token counts after a cell
  agents?: AgentHub; // the slots of each cell spread over agent machines (docs/distributed.md)
  bank?: () => Promise<PromptBankSnapshot>; // the prompt bank, measured once a run when a load level needs it
}

// One decode cell: warm-up, ramp -> window -> close, settle, figures. A request the server refuses for good
// comes back as `fatal` (the run loop decides what it ends); an interrupt keeps nothing of the cell.
export async function measureCell(
  env: CellEnv,
  ctx: number,
  n: number,
  startedAt: string,
  queueReference: QueueReference | null,
): Promise<Measured<DecodeCell>> {
  const { sender, clock, stop, settings: s } = env;
  const label = `${contextLabel(ctx)} x${n}`;
  env.phase(`warm-up ${label}`);
  const warm = await warmUp(sender, decodeKey(ctx, n), ctx, n, stop);
  if (warm.fatal) return { sent: warm.sent, fatal: warm.fatal, warnings: [] };
  if (stop.aborted) return { sent: [], interrupted: true };
  env.phase(`decode ${label}: ramp and ${s.duration} s window`);
  const run = await runDecodeCell(
    sender,
    clock,
    { ...s, contextTokens: ctx, concurrency: n },
    env.sampler,
    stop,
    env.monitor?.(clientThreads(s.workers)),
    env.agents ? (spec) => env.agents!.sessions(sender, clock, spec, s.workers) : undefined,
  );
  if (run.interrupted) return { sent: [], interrupted: true }; // measured again on resume
  env.phase(`settle after ${label}`, `decode ${label}`);
  await settle(
    clock,
    env.sampler,
    { timeoutMs: s.settleTimeout * 1000, pauseMs: s.settlePause * 1000 },
    stop,
  );
  const warnings = warmUpWarnings(label, warm.sent);
  const cellSent = await pinEstimatedChunks(run.sent, env.tokenize);
  const sent = [...warm.sent, ...cellSent];
  if (run.fatal) return { sent, fatal: run.fatal, warnings };
  const built = buildDecodeCell({
    contextTokens: ctx,
    concurrency: n,
    window: run.window,
    requests: cellSent.map(cellRequest),
    samples: run.samples,
    rampTimedOut: run.rampTimedOut,
    errorLimitHit: run.errorLimitHit,
    queueReference,
    ...(run.agents?.lost ? { failedBy: run.agents.lost } : {}),
    ...(run.clientLoad
      ? {
          client: {
            loopDelayTimeP50Ms: run.clientLoad.loopDelayTimeP50Ms ?? 0,
            saturated: clientSaturated(run.clientLoad),
          },
        }
      : {}),
  });
  const cell = withClientFigures(built, cellSent, run.window, run.clientLoad);
  if (run.agents) {
    cell.agents = cellAgentsField(run.agents, s.duration * 1000);
    if (cell.agents.clockFlag) warnings.push(`decode ${label}: ${cell.agents.clockFlag}`);
  }
  cell.startedAt = startedAt;
  cell.finishedAt = isoTime(clock);
  if (cell.status !== 'Failed' || !unreachable(run.sent)) return { sent, cell, warnings };
  return { sent, cell, warnings, fatal: stoppedAnswering(`decode ${label}`, env.dir) };
}

// The kinds of failure the server answered in its own words (an HTTP error body, an error event in the stream).
const SERVER_SAID: ReadonlySet<string> = new Set(['http_status', 'stream_error_event']);

export function cellRequest(x: Sent): CellRequest {
  const r = x.record;
  return {
    sentAtMs: r.sentAtMs,
    endAtMs: r.endAtMs,
    chunks: r.chunks,
    ok: r.ok,
    ...(r.firstTokenAtMs !== undefined ? { firstTokenAtMs: r.firstTokenAtMs } : {}),
    ...(r.error ? { errorKind: r.error.kind } : {}),
    ...(r.error && SERVER_SAID.has(r.error.kind)
      ? {
          serverError: {
            message: r.error.message.replace(/^HTTP \d+: /, ''),
            ...(r.error.status !== undefined ? { status: r.error.status } : {}),
          },
        }
      : {}),
    ...(r.promptTokens !== undefined ? { promptTokens: r.promptTokens } : {}),
    ...(r.cachedTokens !== undefined ? { cachedTokens: r.cachedTokens } : {}),
    ...(r.resent ? { resent: r.resent } : {}),
  };
}

// Every failure a connect failure and not one token: the server went away, not a cell that went badly.
export function stoppedAnswering(during: string, dir: string): BenchError {
  return new BenchError('TARGET_UNREACHABLE', `the server stopped answering during ${during}.`, {
    hint: `Finished cells are kept; continue later with \`${cliCommand('run', '--resume', dir)}\`.`,
  });
}

// Nothing came back and every failure was a connection's: the server is gone, not slow.
export function unreachable(sent: readonly Sent[]): boolean {
  const errs = sent.filter((x) => !x.record.ok && x.record.error?.kind !== 'aborted');
  return (
    errs.length > 0 &&
    errs.every((x) => x.record.error?.kind === 'connect' || x.record.error?.kind === 'timeout_connect') &&
    sent.every((x) => x.record.outputTokens === 0)
  );
}
