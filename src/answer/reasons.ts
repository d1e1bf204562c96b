import { cellName, contextLabel, fmtInt, fmtMs, fmtTokS } from '../format/index.js';
import { cliCommand } from '../invocation.js';
import type { DecodeCell, RunResult, ServiceLevel } from '../results/schema.js';
import type { CellJudgement, ContextCapacity } from './capacity.js';
import type { ShareJudgement } from '../stats/slo.js';
import { engineSettings, type EngineSettings } from './engines.js';
import { failedRequests, kvDemandTokens, queuedSeats } from '../cell-rules.js';
export { seatsOf } from '../cell-rules.js'; // one home with the twin's max running sequences

// Why the capacity of a context stops where it does, from the evidence the result holds about the first cell that
// fails the level (docs/method.md "Why the limit is there"), and which setting of the engine moves it.

export type LimitKind =
  | 'kv' // the next level does not fit the KV cache (Over capacity, or the server failed it as over)
  | 'queue' // requests wait for a seat: the engine runs fewer at once than were sent
  | 'kv-queue' // requests wait because the KV cache is full
  | 'speed' // each request decodes slower than the level asks, as the batch grows
  | 'prefill-stall' // decode pauses while re-sent prompts are prefilled
  | 'ttft' // the first token is late with every request running
  | 'errors' // the server failed requests
  | 'undecided' // too close to call: too few requests
  | 'unmeasured'; // every level measured meets it

export interface LimitReason {
  kind: LimitKind;
  users: number | undefined; // the concurrency the reason is about
  short: string; // a few words for a terminal line
  text: string; // the evidence in a sentence
  change: string; // what to change, naming the engine's setting
  setting?: string; // the one setting named (kv, queue: the engine's own flag)
  seats?: number; // requests the server ran at once (queue)
}

// A KV-bound queue: the running requests' prompts and half their answers (a request is on average halfway through
// its output) fill at least this share of the KV cache.
const KV_FULL_SHARE = 0.8;
// A chunk gap p99 this many times the median with decode too slow: steps that stopped for a prefill.
const STALL_GAP_FACTOR = 4;

const users = (n: number) => `${n} user${n === 1 ? '' : 's'}`;

export function limitReason(r: RunResult, cc: ContextCapacity, slo: ServiceLevel): LimitReason {
  const reason = limitCellReason(r, cc, slo);
  const L = cc.limit;
  const above = L && cc.cells.find((j) => j.cell.concurrency > L.cell.concurrency && j.verdict === 'meets');
  return above ? outlierReason(r, reason, L, above) : reason;
}

// A level above the limit meets the level: the limit cell is likelier a stall or an outlier than the server's limit
// (the H200 seed's 8K x 8 waited 11 s for a first token between neighbours of 0.1-0.5 s). The capacity still stops
// below it (docs/method.md "Capacity under a service level"); the reason says so and how to measure it again.
function outlierReason(r: RunResult, base: LimitReason, L: CellJudgement, above: CellJudgement): LimitReason {
  const { contextTokens: C, concurrency: N } = L.cell;
  const M = above.cell.concurrency;
  const stall = base.kind === 'ttft' || base.kind === 'prefill-stall';
  const evidence =
    base.kind === 'ttft' || base.kind === 'queue' || base.kind === 'kv-queue'
      ? `first token ${fmtMs(above.cell.ttftMs)}`
      : base.kind === 'speed' || base.kind === 'prefill-stall'
        ? `${fmtTokS(above.cell.perRequestTokensPerS)} tok/s each`
        : judgedText(above);
  const rerun = cliCommand(
    'run',
    '--base-url',
    r.target.baseUrl || 'URL', // an imported report keeps no server address
    ...(r.target.api === 'completions' ? ['--api', 'completions'] : []),
    '--contexts',
    C % 1024 === 0 ? contextLabel(C) : String(C),
    '--concurrency',
    String(N),
    '--max-output',
    String(r.config.maxOutput),
    '--duration',
    String(r.config.duration),
  );
  return {
    ...base,
    short: `${base.short} (${M} met it)`,
    text: `${base.text} Yet ${users(M)} met it (${evidence}): ${cellName(L.cell)} looks like ${stall ? 'a stall' : 'an outlier'}.`,
    change: `measure ${cellName(L.cell)} again (\`${rerun}\`); if it fails again: ${base.change}`,
  };
}

function limitCellReason(r: RunResult, cc: ContextCapacity, slo: ServiceLevel): LimitReason {
  const e = engineSettings(r.engine.name);
  const C = cc.contextTokens;
  const ctx = contextLabel(C);
  const L = cc.limit;
  if (!L) {
    const open = cc.undecided[0];
    if (open)
      return {
        kind: 'undecided',
        users: open.cell.concurrency,
        short: `${users(open.cell.concurrency)}: too close to call`,
        text: `At ${users(open.cell.concurrency)} the share that met the level is too close to call (${judgedText(open)}).`,
        change: 'measure longer or again: --duration 60, --repeats 3, or shorter answers (--max-output)',
      };
    const top = cc.cells[cc.cells.length - 1];
    // The top level meets it with requests already waiting for a seat: more users only lengthen the queue.
    const queued = top && top === cc.capacity ? queueReason(r, top.cell, e, true) : undefined;
    if (queued) return queued;
    return {
      kind: 'unmeasured',
      users: top?.cell.concurrency,
      short: 'no limit found in the levels measured',
      text: `Every level measured at ${ctx} meets the level, up to ${users(top?.cell.concurrency ?? 0)}.`,
      change: `measure more users: --concurrency ${(top?.cell.concurrency ?? 1) * 2},${(top?.cell.concurrency ?? 1) * 4}`,
    };
  }
  const cell = L.cell;
  const N = cell.concurrency;
  const maxOut = r.config.maxOutput;
  const kvTokens = r.target.kvCapacityTokens;
  const need = kvDemandTokens(C, N, maxOut);
  if (cell.status === 'Over capacity' || (cell.capacityCheck && cell.status !== 'Valid'))
    return {
      kind: 'kv',
      users: N,
      short: `KV cache full at ${users(N)}`,
      text:
        `${users(N)} at ${ctx} with answers up to ${contextLabel(maxOut)} need ${fmtInt(need)} tokens of KV cache` +
        (kvTokens ? `; the server holds ${fmtInt(kvTokens)}.` : '.') +
        (cell.status === 'Over capacity' ? ' Not run.' : ` The server did not hold them (${cell.status}).`),
      change: `${e.engine}: a larger KV cache (${e.kv.join(', ')}); or shorter answers (--max-output)`,
      setting: e.kv[0]!,
    };
  if (cell.status === 'Failed') {
    const errs = failedRequests(cell.errors)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ');
    const refused = e.admission && /http_status/.test(errs);
    return {
      kind: 'errors',
      users: N,
      short: `requests failed at ${users(N)}`,
      text: `At ${users(N)} the server failed requests (${errs || cell.error || 'no token in the window'}).`,
      change: refused
        ? `${e.engine}: ${e.admission} refuses requests beyond it; raise it`
        : "see the cell's errors in the report; the server's log names the cause",
    };
  }
  const queued = queueReason(r, cell, e, false);
  if (queued) return queued;
  const misses = L.share?.misses;
  const rateMisses = misses?.rate ?? 0;
  const ttftMisses = misses?.ttft ?? 0;
  const slowDecode =
    slo.tokensPerS !== undefined &&
    (rateMisses > ttftMisses ||
      (L.basis !== 'requests' &&
        cell.perRequestTokensPerS !== null &&
        cell.perRequestTokensPerS < slo.tokensPerS));
  if (slowDecode) {
    const gaps = cell.chunkGapMs;
    const stalled =
      (cell.stalls ?? 0) > 0 ||
      (gaps?.p99 != null && gaps.p50 != null && gaps.p50 > 0 && gaps.p99 >= STALL_GAP_FACTOR * gaps.p50);
    if (stalled && e.chunk)
      return {
        kind: 'prefill-stall',
        users: N,
        short: `decode pauses for prefill at ${users(N)}`,
        text:
          `At ${users(N)} decode pauses while re-sent prompts are prefilled: chunk gaps p99 ${fmtMs(gaps?.p99)} ` +
          `against ${fmtMs(gaps?.p50)} typical${cell.stalls ? `, ${cell.stalls} stalls` : ''}, and requests decoded at ${fmtTokS(cell.perRequestTokensPerS)} tok/s.`,
        change: `${e.engine}: smaller prefill chunks (${e.chunk}) so decode steps run between them`,
        setting: e.chunk,
      };
    const first = cc.cells.find((c) => c.cell.perRequestTokensPerS !== null && c.cell.status !== 'Failed');
    return {
      kind: 'speed',
      users: N,
      short: `per-user speed falls to ${fmtTokS(cell.perRequestTokensPerS)} tok/s at ${users(N)}`,
      text:
        `At ${users(N)} each request decoded at ${fmtTokS(cell.perRequestTokensPerS)} tok/s` +
        (first && first !== L
          ? ` (${fmtTokS(first.cell.perRequestTokensPerS)} at ${users(first.cell.concurrency)})`
          : '') +
        `: a larger batch makes every step slower, below the ${slo.tokensPerS} tok/s asked.`,
      change:
        'no setting raises it: more or faster GPUs (tensor parallel), speculative decoding or a smaller model; or fewer users per server',
    };
  }
  return {
    kind: 'ttft',
    users: N,
    short: `first token late at ${users(N)}`,
    text:
      `At ${users(N)} the first token took ${fmtMs(cell.ttftMs)}${cell.ttft?.p90 != null ? ` (p90 ${fmtMs(cell.ttft.p90)})` : ''} with every request running` +
      (cell.cacheHitRatio != null
        ? ` and ${Math.round(cell.cacheHitRatio * 100)}% of prompt tokens cached.`
        : '.'),
    change:
      cell.cacheHitRatio != null && cell.cacheHitRatio < 0.5
        ? `${e.engine}: the prefix cache does not keep the prompts; a larger KV cache (${e.kv.join(', ')})`
        : 'fewer users per server, or faster prefill (more GPUs)',
  };
}

// Why requests of a Requests queued cell waited: for a seat, or for KV room once the seats' prompts and answers
// fill the cache. `met`: the cell meets the level (the top level measured), so the queue is what more users meet.
function queueReason(
  r: RunResult,
  cell: DecodeCell,
  e: EngineSettings,
  met: boolean,
): LimitReason | undefined {
  const seats = queuedSeats(cell)?.seats; // src/cell-rules.ts: the twin's max running sequences read the same
  if (seats === undefined) return undefined;
  const { contextTokens: C, concurrency: N } = cell;
  const kvTokens = r.target.kvCapacityTokens;
  const kvShare = kvTokens ? (seats * (C + r.config.maxOutput / 2)) / kvTokens : 0;
  const kvUsage = Math.max(0, ...(cell.serverSamples ?? []).map((s) => s.kvUsage ?? 0));
  const wait =
    cell.ttft?.p90 != null ? `TTFT p90 ${fmtMs(cell.ttft.p90)}` : `median TTFT ${fmtMs(cell.ttftMs)}`;
  const at = met ? `At ${users(N)} the level is met, but the server` : `At ${users(N)} the server`;
  const more = met ? '; more users would only wait longer in its queue.' : '.';
  if (kvShare >= KV_FULL_SHARE || kvUsage >= 0.95)
    return {
      kind: 'kv-queue',
      users: N,
      seats,
      short: `requests queue for KV cache at ${users(N)}`,
      text:
        `${at} ran about ${seats} at once: their prompts and answers fill its KV cache` +
        `${kvTokens ? ` (${fmtInt(kvTokens)} tokens)` : ''}; the others waited (${wait})${more}`,
      change: `${e.engine}: a larger KV cache (${e.kv.join(', ')}); or shorter answers (--max-output)`,
      setting: e.kv[0]!,
    };
  return {
    kind: 'queue',
    users: N,
    seats,
    short: `requests queue: the server runs ${seats} at once`,
    text: `${at} ran about ${seats} at once and the others waited for a first token (${wait})${more}`,
    change: `${e.engine}: raise ${e.seats} (about ${seats} now)${e.seatsNote ? `; ${e.seatsNote}` : ''}`,
    setting: e.seats,
  };
}

export function judgedText(j: { basis: string; share?: ShareJudgement | undefined }): string {
  const s = j.share;
  if (!s || s.basis === 'medians')
    return j.basis === 'predicted' ? 'predicted median request' : 'median request';
  const pct = s.share === null ? '—' : `${Math.round(s.share * 100)}%`;
  return `${pct} of ${s.judged} request${s.judged === 1 ? '' : 's'}`;
}
