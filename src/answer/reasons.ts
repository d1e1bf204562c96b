import { cellName, contextLabel, fmtInt, fmtMs, fmtTokS } from '../format/index.js';
import { cliCommand } from '../invocation.js';
import type { DecodeCell, RunResult, ServiceLevel } from '../results/schema.js';
import type { CellJudgement, ContextCapacity } from './capacity.js';
import type { ShareJudgement } from '../stats/slo.js';
import { engineSettings, type EngineSettings } from '../engines/index.js';
import { failedRequests, kvDemandTokens, queuedSeats } from '../cell-rules.js';
import { bindingAt, kvBoundQueue, needFor, serverLimits, type Binding, type ServerLimits } from './limits.js';
import { gpuChange, seatsWord, users } from './words.js';
export { seatsOf } from '../cell-rules.js'; // one home with the twin's max running sequences

// Why the capacity of a context stops where it does, from the evidence the result holds about the first cell that
// fails the level (docs/method.md "Why the limit is there"), and which setting of the engine moves it.

export type LimitKind =
  | 'kv' // the next level does not fit the KV cache (Over capacity, or the server failed it as over)
  | 'seats-kv' // both bind: more users than seats, and the KV cache would not hold them at once either
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
  setting?: string; // the one setting named (kv, queue: the engine's own flag; seats-kv: both, with their values)
  seats?: number; // requests the server ran at once (queue, seats-kv)
  // What the next level at once needs (the what-if tries it): the seats raised to it, a KV cache that holds it.
  need?: { seats?: number; kvTokens?: number };
  // A limit the result cannot pin (Ollama's KV, llama.cpp split or unified without its launch command): which limits
  // are possible and what would tell them apart. The what-if then claims no more than "at most".
  unknown?: string;
  // The limit level was not run because of a KV figure that is only a lower bound: the capacity may lie above.
  capacityAtLeast?: boolean;
}

type Settings = EngineSettings & { engine: string };

// A chunk gap p99 this many times the median with decode too slow: steps that stopped for a prefill.
const STALL_GAP_FACTOR = 4;

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
  const lim = serverLimits(r);
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
    const queued = top && top === cc.capacity ? queueReason(r, lim, top.cell, e, true) : undefined;
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
  if (cell.status === 'Over capacity' || (cell.capacityCheck && cell.status !== 'Valid'))
    return kvReason(r, lim, cell, e);
  if (cell.status === 'Failed') return failedReason(r, lim, cell, e);
  const queued = queueReason(r, lim, cell, e, false);
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
    return speedReason(cc, L, slo);
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

// Per-request rates within this share of each other: the batch is not what slows a request (a step that does not
// grow with the batch, or within the noise of one).
const SAME_SPEED_SHARE = 0.9;
const GPU_CHANGE = gpuChange('speculative decoding or a smaller model');

// Each request decodes slower than the level asks. A larger batch makes every step slower only where the rate falls
// as users are added: at one user, or where it does not fall, it is the model's speed on these GPUs.
function speedReason(cc: ContextCapacity, L: CellJudgement, slo: ServiceLevel): LimitReason {
  const N = L.cell.concurrency;
  const rate = fmtTokS(L.cell.perRequestTokensPerS);
  const asked = `${slo.tokensPerS} tok/s asked`;
  const ran = cc.cells.filter((c) => c.cell.perRequestTokensPerS !== null && c.cell.status !== 'Failed');
  const first = ran[0];
  const speeds = ran.map((c) => c.cell.perRequestTokensPerS!);
  const flat = speeds.length > 1 && Math.min(...speeds) >= SAME_SPEED_SHARE * Math.max(...speeds);
  const base = { kind: 'speed' as const, users: N };
  if (N === 1)
    return {
      ...base,
      short: `one request alone decodes at ${rate} tok/s`,
      text: `One request alone decoded at ${rate} tok/s, below the ${asked}: the model's speed on this server's GPUs, not the batch.`,
      change: GPU_CHANGE,
    };
  if (first === L && flat) {
    const top = ran[ran.length - 1]!.cell.concurrency;
    return {
      ...base,
      short: `each request decodes at about ${rate} tok/s at any load`,
      text:
        `At every level measured (${N} to ${top} users) each request decoded at about ${rate} tok/s: the batch does not ` +
        `slow it, so one request alone would not be faster: below the ${asked}, the model's speed on this server's GPUs.`,
      change: GPU_CHANGE,
    };
  }
  if (first === L)
    return {
      ...base,
      short: `per-user speed ${rate} tok/s at ${users(N)}, the fewest measured`,
      text:
        `At ${users(N)}, the fewest measured, each request decoded at ${rate} tok/s, below the ${asked}; ` +
        `whether fewer at once decode faster was not measured.`,
      change: `measure fewer users (--concurrency 1): if one alone is as slow, ${GPU_CHANGE}; else fewer users per server`,
    };
  const was = `${fmtTokS(first!.cell.perRequestTokensPerS)} at ${users(first!.cell.concurrency)}`;
  if (L.cell.perRequestTokensPerS! >= SAME_SPEED_SHARE * first!.cell.perRequestTokensPerS!)
    return {
      ...base,
      short: `per-user speed ${rate} tok/s at ${users(N)}, near the level at any load`,
      text:
        `At ${users(N)} each request decoded at ${rate} tok/s (${was}): about as fast as with fewer at once, so the ` +
        `batch barely slows it; the model's speed on this server's GPUs is near the ${asked}.`,
      change: `${GPU_CHANGE}; or fewer users per server`,
    };
  return {
    ...base,
    short: `per-user speed falls to ${rate} tok/s at ${users(N)}`,
    text: `At ${users(N)} each request decoded at ${rate} tok/s (${was}): a larger batch makes every step slower, below the ${asked}.`,
    change: `${GPU_CHANGE}; or fewer users per server`,
  };
}

const fmtCtx = (C: number, maxOut: number) => `${contextLabel(C)} + ${contextLabel(maxOut)}`;

// The KV as the engine lays it out, in words: a pool, or llama.cpp's slots cut from -c, or the readings it may have.
function kvWords(l: ServerLimits, b: Binding, C: number, N: number, maxOut: number): string {
  if (b.readings)
    return (
      `its KV cache is ${fmtInt(b.readings.split)} tokens if its ${l.seats ?? ''} slots are split, ` +
      `${fmtInt(b.readings.unified)} if they share one pool`
    );
  if (l.kvTokens === undefined) return 'how much KV cache it has is not known';
  if (l.layout === 'split') {
    const per = Math.floor(l.kvTokens / N);
    return (
      `its KV cache of ${fmtInt(l.kvTokens)} tokens cut into ${N} slots gives about ${fmtInt(per)} each` +
      (per < C + maxOut ? `, short of ${fmtCtx(C, maxOut)}` : '')
    );
  }
  return `its KV cache holds ${fmtInt(l.kvTokens)} tokens${l.kvExact ? '' : ` (${l.kvSource ?? 'read'}, not exact)`}`;
}

// What the reader can do where a limit is unknown: the limits possible and what would tell them apart.
function unknownNote(l: ServerLimits, b: Binding, C: number, N: number): string | undefined {
  const tell = l.engine.limits.tellApart;
  if (b.readings && b.kv === undefined)
    return `${users(N)} at ${contextLabel(C)} fit if the slots are split, not if they share one pool: the API cannot tell${tell ? `; ${tell} would` : ''}`;
  if (l.unknown.includes('kv') && l.engine.limits.unknownFromApi.includes('kv'))
    return (
      `${l.engine.display} reports no KV cache: whether its memory holds ${N} requests' contexts at once is not known` +
      (tell ? ` (${tell} would tell)` : '')
    );
  return undefined;
}

// The level does not fit the KV cache as it is: both limits where the seats bind too (llama.cpp: the next request
// waits for a slot whatever -c is), with the settings that move both.
function kvReason(r: RunResult, lim: ServerLimits, cell: DecodeCell, e: Settings): LimitReason {
  const { contextTokens: C, concurrency: N } = cell;
  const maxOut = r.config.maxOutput;
  const b = bindingAt(lim, C, N, maxOut);
  const ctx = contextLabel(C);
  const held =
    cell.status === 'Over capacity'
      ? ' Not run.'
      : cell.status === 'Requests queued'
        ? ' Measured: the server did not run them all at once (Requests queued).'
        : ` The server did not hold them (${cell.status}).`;
  const capacityAtLeast = cell.status === 'Over capacity' && r.target.kvCapacityBound === 'lower-bound';
  const unknown = unknownNote(lim, b, C, N);
  if (b.seats && b.kv !== false && lim.seats !== undefined) {
    const need = needFor(lim, { ...b, kv: true }, C, N, maxOut);
    const setting = lim.engine.setting(need);
    return {
      kind: 'seats-kv',
      users: N,
      seats: lim.seats,
      short: `${lim.seatsSeen ? 'about ' : ''}${lim.seats} ${seatsWord(lim)} and the KV cache both bind at ${users(N)}`,
      text:
        `${users(N)} at ${ctx} need ${N} running at once and ${fmtInt(b.need)} tokens of KV cache (answers up to ` +
        `${contextLabel(maxOut)}). The server runs ${lim.seatsSeen ? 'about ' : ''}${lim.seats} at once (${lim.seatsSource}): a request beyond them ` +
        `waits for one to finish, whatever the KV cache; and ${kvWords(lim, b, C, N, maxOut)}.${held}`,
      change: `${e.engine}: ${setting} together (one alone does not do it: more KV cache runs no more at once, more ${seatsWord(lim)} do not fit)`,
      setting,
      need,
      ...(unknown ? { unknown } : {}),
      ...(capacityAtLeast ? { capacityAtLeast } : {}),
    };
  }
  const need = { kvTokens: Math.max(b.need, lim.kvTokens ?? 0) };
  return {
    kind: 'kv',
    users: N,
    short: `KV cache full at ${users(N)}`,
    text:
      `${users(N)} at ${ctx} with answers up to ${contextLabel(maxOut)} need ${fmtInt(b.need)} tokens of KV cache` +
      (b.readings
        ? `; ${kvWords(lim, b, C, N, maxOut)}.`
        : lim.kvTokens
          ? `; the server holds ${fmtInt(lim.kvTokens)}.`
          : '.') +
      held +
      (unknown ? ` ${sentence(unknown)}.` : ''),
    change: `${e.engine}: a larger KV cache (${e.kv.join(', ')}); or shorter answers (--max-output)`,
    setting: e.kv[0]!,
    need,
    ...(unknown ? { unknown } : {}),
    ...(capacityAtLeast ? { capacityAtLeast } : {}),
  };
}

const sentence = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

// "2 stream_error_event: "Context size has been exceeded." (2)": the errors by kind and the server's own words.
function errorsText(cell: DecodeCell): string {
  const kinds = failedRequests(cell.errors)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  const words = (cell.serverErrors ?? [])
    .slice(0, 2)
    .map((s) => `"${s.message}"${s.count > 1 ? ` ×${s.count}` : ''}`)
    .join('; ');
  return [kinds || cell.error || 'no token in the window', words && `the server said ${words}`]
    .filter(Boolean)
    .join(': ');
}

function failedReason(r: RunResult, lim: ServerLimits, cell: DecodeCell, e: Settings): LimitReason {
  const { contextTokens: C, concurrency: N } = cell;
  const maxOut = r.config.maxOutput;
  const said = (texts: readonly string[]) =>
    (cell.serverErrors ?? []).find((s) =>
      texts.some((t) => s.message.toLowerCase().includes(t.toLowerCase())),
    );
  const full = lim.engine.errors.poolFull ? said([lim.engine.errors.poolFull]) : undefined;
  if (full && lim.layout === 'unified') {
    // A shared pool ran out under N requests at once (llama.cpp unified: every running request failed).
    const need = kvDemandTokens(C, N, maxOut);
    const setting = lim.engine.setting({ kvTokens: need });
    const within =
      lim.layoutProof &&
      lim.seats !== undefined &&
      lim.slotTokens !== undefined &&
      N * C <= lim.seats * lim.slotTokens
        ? `, though ${N} × ${contextLabel(C)} is within ${lim.seats} slots × ${fmtInt(lim.slotTokens)}: its slots share`
        : ': its slots share';
    return {
      kind: 'kv',
      users: N,
      short: `KV cache full at ${users(N)} (one pool the slots share)`,
      text:
        `At ${users(N)} the server answered "${full.message}" (${full.count} requests)${within} one KV pool` +
        `${lim.kvTokens ? ` of ${fmtInt(lim.kvTokens)} tokens` : ''}, and ${users(N)} at ${contextLabel(C)} with answers ` +
        `up to ${contextLabel(maxOut)} need ${fmtInt(need)}.`,
      change: `${e.engine}: a larger pool (${setting}); or shorter answers (--max-output)`,
      setting,
      need: { kvTokens: need },
    };
  }
  const overloaded = said(lim.engine.errors.overloaded);
  const refused = overloaded || (e.admission && /http_status/.test(errorsText(cell)));
  return {
    kind: 'errors',
    users: N,
    short: `requests failed at ${users(N)}`,
    text: `At ${users(N)} the server failed requests (${errorsText(cell)}).`,
    change: refused
      ? e.admission
        ? `${e.engine}: ${e.admission} refuses requests beyond it; raise it`
        : `${e.engine}: its queue is full; ${lim.engine.limits.seats}`
      : "the server's words above, and its log, name the cause",
  };
}

// Why requests of a Requests queued cell waited: for a seat, or for KV room once the seats' prompts and answers
// fill the cache (engines with one pool or a token budget: llama.cpp slots never wait for KV, a shared llama.cpp pool
// fails instead). Where the KV would not hold N at once either, both bind. `met`: the cell meets the level (the top
// level measured), so the queue is what more users meet.
function queueReason(
  r: RunResult,
  lim: ServerLimits,
  cell: DecodeCell,
  e: Settings,
  met: boolean,
): LimitReason | undefined {
  const { contextTokens: C, concurrency: N } = cell;
  const stated = lim.seats !== undefined && N > lim.seats ? lim.seats : undefined;
  const seats = queuedSeats(cell)?.seats ?? (cell.status === 'Requests queued' ? stated : undefined); // src/cell-rules.ts: the twin's max running sequences read the same
  if (seats === undefined) return undefined;
  const maxOut = r.config.maxOutput;
  const kvTokens = lim.kvTokens;
  const wait =
    cell.ttft?.p90 != null ? `TTFT p90 ${fmtMs(cell.ttft.p90)}` : `median TTFT ${fmtMs(cell.ttftMs)}`;
  const at = met ? `At ${users(N)} the level is met, but the server` : `At ${users(N)} the server`;
  const more = met ? '; more users would only wait longer in its queue.' : '.';
  const budget = lim.layout === 'token-budget';
  if (kvBoundQueue(lim, cell, seats, maxOut)) {
    const need = kvDemandTokens(C, N, maxOut);
    return {
      kind: 'kv-queue',
      users: N,
      seats,
      short: `requests queue for KV cache at ${users(N)}`,
      text:
        `${at} ran about ${seats} at once: their prompts and answers fill its ${budget ? 'token budget' : 'KV cache'}` +
        `${kvTokens ? ` (${fmtInt(kvTokens)} tokens)` : ''}; the others waited (${wait})${more}`,
      change: budget
        ? `${e.engine}: ${lim.engine.setting({ kvTokens: need })} (about ${seats} at ${fmtCtx(C, maxOut)} now); or shorter answers (--max-output)`
        : `${e.engine}: a larger KV cache (${e.kv.join(', ')}); or shorter answers (--max-output)`,
      setting: budget ? lim.engine.setting({ kvTokens: need }) : e.kv[0]!,
      need: { kvTokens: Math.max(need, kvTokens ?? 0) },
    };
  }
  const b = bindingAt({ ...lim, seats }, C, N, maxOut);
  const unknown = unknownNote(lim, b, C, N);
  if (b.kv === true && lim.seats !== undefined) {
    const need = needFor(lim, b, C, N, maxOut);
    const setting = lim.engine.setting(need);
    return {
      kind: 'seats-kv',
      users: N,
      seats,
      short: `${seats} ${seatsWord(lim)} and the KV cache both bind at ${users(N)}`,
      text:
        `${at} ran about ${seats} at once and the others waited for a first token (${wait})${more.replace(/\.$/, '')}: ` +
        `${seats} ${seatsWord(lim)}, and ${kvWords(lim, b, C, N, maxOut)}.`,
      change: `${e.engine}: ${setting} together (one alone does not do it: more KV cache runs no more at once, more ${seatsWord(lim)} do not fit)`,
      setting,
      need,
    };
  }
  return {
    kind: 'queue',
    users: N,
    seats,
    short: `requests queue: the server runs ${seats} at once`,
    text:
      `${at} ran about ${seats} at once and the others waited for a first token (${wait})${more}` +
      (unknown ? ` ${sentence(unknown)}.` : ''),
    change:
      `${e.engine}: raise ${e.seats} (about ${seats} now)${e.seatsNote ? `; ${e.seatsNote}` : ''}` +
      (unknown ? `, if the memory holds them` : ''),
    setting: e.seats,
    need: { seats: N },
    ...(unknown ? { unknown } : {}),
  };
}

export function judgedText(j: { basis: string; share?: ShareJudgement | undefined }): string {
  const s = j.share;
  if (!s || s.basis === 'medians')
    return j.basis === 'predicted' ? 'predicted median request' : 'median request';
  const pct = s.share === null ? '—' : `${Math.round(s.share * 100)}%`;
  return `${pct} of ${s.judged} request${s.judged === 1 ? '' : 's'}`;
}
