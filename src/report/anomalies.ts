import type { DecodeCell, LoadLevel, PrefillPoint, RunResult } from '../results/schema.js';
import { engineOf } from '../engines/index.js';
import { rowLabel } from '../answer/levels.js';
import { byLoad, CLIENT_BOUND_FIX, lagText, loadText } from './levels-model.js';
import { cellName, contextLabel, fmt1, fmtInt, fmtMs, fmtPct, fmtS, fmtTokS } from '../format/index.js';
import { cellMap, decodeConcurrency, decodeContexts, prefillPoints } from './model.js';
import { cellKey, clientSaturated, failedRequests } from '../cell-rules.js';
import { prefillRepeatWarning } from '../results/warnings.js';

// Anomaly rules (docs/report.md): each flag names the figure, the evidence and why it matters, in words.
export type AnomalyKind =
  | 'prefill-outlier'
  | 'prefill-repeat-outlier'
  | 'ttft-outlier'
  | 'throughput-drop'
  | 'failed'
  | 'queued'
  | 'errors'
  | 'stall'
  | 'capacity'
  | 'client-bound'
  | 'machine-busy'
  | 'held-stream'
  | 'resent'
  | 'estimated-tokens'
  | 'warning'
  | 'unfinished'
  | 'prefix-cache'
  | 'behind';

export interface Anomaly {
  kind: AnomalyKind;
  severity: 'error' | 'warn' | 'info';
  phase: 'prefill' | 'decode' | 'level' | 'run';
  contextTokens?: number;
  concurrency?: number;
  level?: string; // a load level's key; a flag about several levels of a row names the first
  text: string;
}

/** A prefill point differs from its neighbours' mean by more than this, outside their range. */
export const PREFILL_OUTLIER_FRACTION = 0.25;
/** A cell's TTFT is at least this many times the median of its matrix neighbours ... */
export const TTFT_OUTLIER_FACTOR = 3;
/** ... and at least this much slower, so tiny absolute jitter is not flagged. */
export const TTFT_OUTLIER_MIN_EXCESS_MS = 250;
/** Total tok/s falls by more than this fraction when concurrency rises. */
export const THROUGHPUT_DROP_FRACTION = 0.1;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const pct = (v: number) => `${Math.round(v * 100)}%`;

// Why a prefill point can stand out, and what to do. The first point measured (the smallest context, right after
// the one warm-up request) is the one a server still warming up, or a sim on a busy machine, slows.
function outlierWhy(p: PrefillPoint, firstAndLow: boolean): string {
  const smooth = 'Prefill speed changes smoothly with context';
  if (firstAndLow)
    return (
      `${smooth}, and this is the first point the run measured: a cold start (a server, or a sim on a busy ` +
      `machine, answering its first prompts slower) fits, as does a one-off stall. Rerun to tell; a figure that ` +
      `stays low is this size's own (a kernel, chunking or batching path).`
    );
  return p.repeats.length > 1
    ? `${smooth}, so this point is likely a one-off (a compile, cache or scheduling stall), yet the median of ` +
        `${p.repeats.length} repeats landed here: look for a cause specific to this size (a kernel, chunking or ` +
        `batching path).`
    : `${smooth}, so this point is likely a one-off (a compile, cache or scheduling stall); rerun with ` +
        `--prefill-repeats 3 before trusting it.`;
}

export function prefillOutliers(points: PrefillPoint[]): Anomaly[] {
  const out: Anomaly[] = [];
  // Iterative: flag the worst point (log distance to its neighbours), drop it, look again, so one
  // outlier does not make its neighbours look like outliers too.
  let pool = points.filter((p) => p.tokensPerS !== null && p.tokensPerS > 0 && p.status !== 'Failed');
  for (;;) {
    let worst: { p: PrefillPoint; score: number; text: string } | undefined;
    for (let i = 0; i < pool.length; i++) {
      const p = pool[i]!;
      const v = p.tokensPerS!;
      const prev = pool[i - 1];
      const next = pool[i + 1];
      let ref: PrefillPoint[];
      if (prev && next) ref = [prev, next];
      else {
        // An end point has one neighbour; judge it only when the next two agree with each other.
        const n1 = prev ?? next;
        const n2 = prev ? pool[i - 2] : pool[i + 2];
        if (!n1 || !n2 || Math.abs(n1.tokensPerS! / n2.tokensPerS! - 1) > PREFILL_OUTLIER_FRACTION) continue;
        ref = [n1];
      }
      const vals = ref.map((x) => x.tokensPerS!);
      const mean = vals.reduce((a, b) => a + b, 0) / vals.length;
      const dev = (v - mean) / mean;
      const limit = ref.length === 2 ? PREFILL_OUTLIER_FRACTION : 2 * PREFILL_OUTLIER_FRACTION;
      if (v >= Math.min(...vals) && v <= Math.max(...vals)) continue;
      if (Math.abs(dev) <= limit) continue;
      const score = Math.abs(Math.log(v / mean));
      if (worst && worst.score >= score) continue;
      const names = ref
        .map((x) => `${contextLabel(x.contextTokens)} (${fmtTokS(x.tokensPerS)})`)
        .join(' and ');
      worst = {
        p,
        score,
        text:
          `Prefill at ${contextLabel(p.contextTokens)} ran at ${fmtTokS(v)} tok/s (TTFT ${fmtMs(p.ttftMs)}), ` +
          `${pct(Math.abs(dev))} ${dev < 0 ? 'below' : 'above'} ${ref.length === 2 ? 'its neighbours' : 'its neighbour'} ${names}. ` +
          outlierWhy(p, p === points[0] && dev < 0),
      };
    }
    if (!worst) break;
    out.push({
      kind: 'prefill-outlier',
      severity: 'warn',
      phase: 'prefill',
      contextTokens: worst.p.contextTokens,
      text: worst.text,
    });
    pool = pool.filter((x) => x !== worst!.p);
  }
  for (const p of points) {
    const flagged = p.repeats.filter((rep) => rep.outlier);
    if (!flagged.length) continue;
    out.push({
      kind: 'prefill-repeat-outlier',
      severity: 'info',
      phase: 'prefill',
      contextTokens: p.contextTokens,
      text:
        `Prefill at ${contextLabel(p.contextTokens)}: ${flagged.length} of ${p.repeats.length} repeats ${flagged.length === 1 ? 'differs' : 'differ'} ` +
        `from the median (${fmtTokS(p.tokensPerS)} tok/s) by more than 25% ` +
        `(${flagged.map((rep) => `${fmtTokS(rep.tokensPerS)} tok/s`).join(', ')}); the median is reported.`,
    });
  }
  return out;
}

function neighbours(r: RunResult, c: DecodeCell): DecodeCell[] {
  const ctx = decodeContexts(r);
  const conc = decodeConcurrency(r);
  const map = cellMap(r);
  const i = ctx.indexOf(c.contextTokens);
  const j = conc.indexOf(c.concurrency);
  const around: Array<[number | undefined, number | undefined]> = [
    [ctx[i - 1], c.concurrency],
    [ctx[i + 1], c.concurrency],
    [c.contextTokens, conc[j - 1]],
    [c.contextTokens, conc[j + 1]],
  ];
  return around
    .map(([x, n]) => (x === undefined || n === undefined ? undefined : map.get(cellKey(x, n))))
    .filter((n): n is DecodeCell => !!n && n.ttftMs !== null && n.status !== 'Failed');
}

export function ttftOutliers(r: RunResult): Anomaly[] {
  const out: Anomaly[] = [];
  for (const c of r.decode) {
    if (c.ttftMs === null || c.status === 'Failed') continue;
    const around = neighbours(r, c);
    if (around.length < 2) continue;
    const m = median(around.map((n) => n.ttftMs!));
    if (c.ttftMs < m * TTFT_OUTLIER_FACTOR || c.ttftMs - m < TTFT_OUTLIER_MIN_EXCESS_MS) continue;
    out.push({
      kind: 'ttft-outlier',
      severity: 'warn',
      phase: 'decode',
      contextTokens: c.contextTokens,
      concurrency: c.concurrency,
      text:
        `TTFT at ${cellName(c)} is ${fmtMs(c.ttftMs)}, ` +
        `${(c.ttftMs / m).toFixed(1)}× the median of its neighbouring cells (${fmtMs(m)}). Prompts are ` +
        `cache-warm, so a TTFT this long means requests waited: a queue, preemption or a stalled prefill.`,
    });
  }
  return out;
}

export function throughputDrops(r: RunResult): Anomaly[] {
  const out: Anomaly[] = [];
  const map = cellMap(r);
  const conc = decodeConcurrency(r);
  for (const ctx of decodeContexts(r)) {
    let best: DecodeCell | undefined;
    for (const n of conc) {
      const c = map.get(cellKey(ctx, n));
      if (!c || c.totalTokensPerS === null || c.status === 'Failed') continue;
      if (best && c.totalTokensPerS < best.totalTokensPerS! * (1 - THROUGHPUT_DROP_FRACTION)) {
        out.push({
          kind: 'throughput-drop',
          severity: 'warn',
          phase: 'decode',
          contextTokens: ctx,
          concurrency: n,
          text:
            `At ${contextLabel(ctx)}, ${n} requests at once give ${fmtTokS(c.totalTokensPerS)} tok/s in total, ` +
            `${pct(1 - c.totalTokensPerS / best.totalTokensPerS!)} less than ${best.concurrency} requests ` +
            `(${fmtTokS(best.totalTokensPerS)}): past this point more concurrency costs throughput.`,
        });
      }
      if (!best || c.totalTokensPerS > best.totalTokensPerS!) best = c;
    }
  }
  return out;
}

type Flag = Pick<Anomaly, 'kind' | 'severity' | 'text'>;

function cellFlags(r: RunResult): Anomaly[] {
  const out: Anomaly[] = [];
  for (const c of r.decode) {
    const base = { phase: 'decode' as const, contextTokens: c.contextTokens, concurrency: c.concurrency };
    for (const f of flagsOfCell(c)) out.push({ ...base, ...f });
  }
  for (const p of r.prefill) {
    if (p.status !== 'Failed') continue;
    out.push({
      kind: 'failed',
      severity: 'error',
      phase: 'prefill',
      contextTokens: p.contextTokens,
      text: `Prefill at ${contextLabel(p.contextTokens)} failed: ${p.error ?? 'no request completed'}.`,
    });
  }
  return out;
}

/** The server's own words for the cell's failed requests: ' The server said "..." (12).', or '' where it said none. */
export function serverWords(c: Pick<DecodeCell, 'serverErrors'>): string {
  const said = c.serverErrors ?? [];
  if (!said.length) return '';
  return ` The server said ${said.map((s) => `"${s.message}" (${s.count})`).join('; ')}.`;
}

// Every flag of one decode cell, in the order the reports list them.
function flagsOfCell(c: DecodeCell): Flag[] {
  const where = cellName(c);
  const failures = failedRequests(c.errors);
  const errs = failures.reduce((a, [, n]) => a + n, 0);
  const kinds = failures.map(([k, n]) => `${n} ${k}`).join(', ');
  const measured = c.status !== 'Failed';
  return [
    statusFlag(c, where, kinds),
    c.capacityCheck && capacityFlag(c, c.capacityCheck, where),
    measured && failedRepeatsFlag(c, where),
    c.client?.clientBound && {
      kind: 'client-bound',
      severity: 'warn', // measured, but partly the client's: flagged like a queue, not like a failure
      text:
        `Cell ${where}: the benchmark client was the bottleneck (${c.client.reason ?? 'overloaded'}); its ` +
        `timings are partly the client's, not the server's. Rerun with --workers N or on a quieter machine.`,
    },
    measured && heldStreamFlag(c, where),
    resentFlag(c, where),
    estimatedTokensFlag(c, where),
    measured && stallFlag(c, where),
    measured &&
      errs > 0 && {
        kind: 'errors',
        severity: 'warn',
        text: `Cell ${where}: ${errs} request${errs === 1 ? '' : 's'} failed (${kinds}); the figures count only what arrived.${serverWords(c)}`,
      },
  ].filter((f): f is Flag => Boolean(f));
}

function statusFlag(c: DecodeCell, where: string, kinds: string): Flag | undefined {
  if (c.status === 'Failed')
    return {
      kind: 'failed',
      severity: 'error',
      text: `Cell ${where} failed: ${c.error ?? 'no figure could be measured'}${kinds ? ` (errors: ${kinds})` : ''}.${serverWords(c)}`,
    };
  if (c.status !== 'Requests queued') return undefined;
  const waiting = c.maxWaiting ? ` Up to ${c.maxWaiting} requests were waiting.` : '';
  return {
    kind: 'queued',
    severity: 'warn',
    text:
      `Cell ${where}: the server did not run all ${c.concurrency} requests at once ` +
      `(average active ${c.avgActive === null ? 'unknown' : c.avgActive.toFixed(1)}).${waiting}` +
      `${c.queueEvidence ? ` Evidence: ${c.queueEvidence.replace(/\.?$/, '.')}` : ''} Its TTFT and per-request speed include queueing.`,
  };
}

function failedRepeatsFlag(c: DecodeCell, where: string): Flag | undefined {
  const failed = (c.repeats ?? []).filter((x) => x.status === 'Failed');
  if (!failed.length) return undefined;
  return {
    kind: 'errors',
    severity: 'warn',
    text:
      `Cell ${where}: ${failed.length} of ${c.repeats!.length} repeats failed ` +
      `(${failed[0]!.error ?? 'no figure'}); the figures are those of the others.`,
  };
}

/** A hold this short against the window moves the window's token count by little (the figure is still the server's). */
export const HELD_SHARE_OF_WINDOW = 0.05;

// The stream was held on the way (src/stats/batching.ts): the arrival-timed figures are the middlebox's.
function heldStreamFlag(c: DecodeCell, where: string): Flag | undefined {
  const b = c.streamBatching;
  if (!b?.batched) return undefined;
  const held = fmtMs(b.heldMs);
  const windowMs = (c.measuredS ?? 0) * 1000;
  const total =
    b.heldMs !== null && windowMs > 0 && b.heldMs <= HELD_SHARE_OF_WINDOW * windowMs
      ? `total tok/s still counts the server's tokens (each at most about ${held} late, in a ${fmtS(c.measuredS)} window)`
      : `total tok/s may be off too (tokens up to ${held} late, in a ${fmtS(c.measuredS)} window)`;
  return {
    kind: 'held-stream',
    severity: 'warn',
    text:
      `Cell ${where}: something between client and server held the stream back and passed it on in bursts: ` +
      `${fmt1(b.eventsPerRead)} token events per read (the server writes ` +
      `${b.eventsPerStep === 1 ? 'one' : `about ${fmt1(b.eventsPerStep)}`} per step), ` +
      `a median ${held} between reads, and in ${pct(b.firstHeldShare)} of requests the first token came with ` +
      `later ones. TTFT, time between tokens and per-request tok/s here (and a service level judged from ` +
      `them) are that proxy's timing, not the server's; ${total}. Measure the server directly, or let the ` +
      `proxy pass the stream on: nginx with proxy_buffering off (or proxy_http_version 1.1) and no gzip for ` +
      `text/event-stream, haproxy with option http-no-delay.`,
  };
}

// Requests sent twice because the server closed a kept-alive connection before answering (docs/method.md
// "Connections"): nothing is wrong with the figures, but the user should know the server closes connections.
function resentFlag(c: DecodeCell, where: string): Flag | undefined {
  const n = c.staleReconnects;
  if (!n) return undefined;
  const one = n === 1;
  const of = c.requestsSent ? ` of ${fmtInt(c.requestsSent)}` : '';
  return {
    kind: 'resent',
    severity: 'info',
    text:
      `Cell ${where}: ${fmtInt(n)}${of} request${one && !of ? '' : 's'} ${one ? 'was' : 'were'} sent again, on a ` +
      `new connection: the server closed the kept-alive connection ${one ? 'it was' : 'each was'} written on ` +
      `without a byte of answer (llama.cpp's server closes them right after a response). ` +
      `${one ? 'It counts' : 'Each counts'} once, its TTFT timed from the second send.`,
  };
}

function estimatedTokensFlag(c: DecodeCell, where: string): Flag | undefined {
  if (c.chunkAttribution !== 'estimated' || !c.windowTokenErrorBound || !c.outputTokens) return undefined;
  return {
    kind: 'estimated-tokens',
    severity: 'info',
    text:
      `Cell ${where}: per-chunk token counts are estimated (the server sends several tokens per chunk ` +
      `without per-chunk usage); the window's ${fmtInt(c.outputTokens)} tokens may be off by up to ` +
      `${fmtInt(c.windowTokenErrorBound)} (${fmtPct(c.windowTokenErrorBound / c.outputTokens, 2)}).`,
  };
}

function stallFlag(c: DecodeCell, where: string): Flag | undefined {
  if (!c.stalls || !c.measuredS) return undefined;
  return {
    kind: 'stall',
    severity: 'warn',
    text:
      `Cell ${where}: ${c.stalls} stalled stream${c.stalls === 1 ? '' : 's'} (gaps between chunks over 1 s, ` +
      `the longest ${fmtMs(c.maxChunkGapMs)}); some stream was stalled for ${fmtMs(c.stalledMs)}, ` +
      `${pct((c.stalledMs ?? 0) / 1000 / c.measuredS)} of the window. Its figures include the pauses.`,
  };
}

// A cell measured over the capacity figure: say what the server did and what that means for the figure.
function capacityFlag(c: DecodeCell, k: NonNullable<DecodeCell['capacityCheck']>, where: string): Flag {
  const rule =
    `${c.concurrency} × (${fmtInt(c.contextTokens)} + max output) = ${fmtInt(k.needTokens)} tokens > ` +
    `KV capacity ${fmtInt(k.kvCapacityTokens)}${k.bound === 'exact' ? '' : ` (${k.bound})`}`;
  const why =
    k.why === 'verify' ? 'measured for --verify-capacity' : 'measured because the capacity is only a bound';
  const verdict = k.held
    ? `the rule held: the server did not run all ${c.concurrency} requests at once (${c.status}).`
    : `the server ran all ${c.concurrency} at once, so it holds more than ${fmtInt(k.kvCapacityTokens)} tokens.`;
  return {
    kind: 'capacity',
    severity: k.held ? 'info' : 'warn',
    text: `Cell ${where}: ${rule}, ${why}; ${verdict}`,
  };
}

// Several cells whose client was the bottleneck say one thing about the run: the machine the client ran on was
// busy (its event loop ran late though the client itself had CPU to spare: other work held the CPU) or the
// client had none to spare. Said once, first, with what to do (a demo on a loaded laptop flags most cells).
export interface ClientBottleneck {
  bound: number; // measured cells whose client was the bottleneck (at least 2)
  measured: number; // cells the client checked itself in
  busy: boolean; // other work held the CPU, not the client itself: a single request (a prefill point) waits too
  worstLoopDelayMs: number;
  // What an arrival typically waited for the loop in the worst of those cells (the delay at the median of the
  // window's time, else its p99): how late a prefill point's first token could be stamped.
  typicalDelayMs: number;
}

export function clientBottleneck(r: RunResult): ClientBottleneck | undefined {
  const measured = r.decode.filter((c) => c.client);
  const bound = measured.filter((c) => c.client!.clientBound);
  if (bound.length < 2) return undefined;
  const saturated = bound.filter((c) => clientSaturated(c.client!)).length;
  return {
    bound: bound.length,
    measured: measured.length,
    busy: saturated * 2 <= bound.length,
    worstLoopDelayMs: Math.max(...bound.map((c) => c.client!.loopDelayP99Ms)),
    typicalDelayMs: Math.max(...bound.map((c) => c.client!.loopDelayTimeP50Ms ?? c.client!.loopDelayP99Ms)),
  };
}

export function machineBusy(r: RunResult): Anomaly | undefined {
  const b = clientBottleneck(r);
  if (!b) return undefined;
  const why = b.busy
    ? 'this machine was busy (the event loop ran late while the client itself used less than a core: other work held the CPU)'
    : 'the client itself had no CPU to spare';
  return {
    kind: 'machine-busy',
    severity: 'warn',
    phase: 'run',
    text:
      `The benchmark client was the bottleneck in ${b.bound} of ${b.measured} measured cells ` +
      `(event-loop delay p99 up to ${fmt1(b.worstLoopDelayMs)} ms): ${why}. Those cells' TTFT and tok/s are partly this ` +
      `machine's, not the server's. Close other programs and run again; against a server, --workers N spreads ` +
      `the client over threads.`,
  };
}

/** Served prefix-cache hits below this share of the cacheable tokens: the cache did not keep the shared parts. */
export const CACHE_SERVED_SHARE = 0.75;
/** An achieved rate this far below the offered one: the server fell behind its arrivals. */
export const BEHIND_FRACTION = 0.1;

const at = (l: LoadLevel) => loadText(l.load);
const joined = (xs: string[]) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}` : xs[0]!);

// The flags of a result's load levels (docs/report.md "Anomaly rules"): a Failed or Client-bound level on its own;
// unfinished requests, a prefix cache that served less than the workload made cacheable, and a server that fell
// behind its arrivals, each said once per row with the levels it happened at.
export function levelFlags(r: RunResult): Anomaly[] {
  const out: Anomaly[] = [];
  const rows = [...new Set((r.levels ?? []).map((l) => l.row))];
  for (const row of rows) {
    const levels = (r.levels ?? []).filter((l) => l.row === row).sort(byLoad);
    const name = rowLabel(row);
    const flag = (kind: AnomalyKind, severity: Anomaly['severity'], l: LoadLevel, text: string): Anomaly => ({
      kind,
      severity,
      phase: 'level',
      level: l.key,
      text,
    });
    for (const l of levels) {
      if (l.status === 'Failed')
        out.push(
          flag(
            'failed',
            'error',
            l,
            `Level ${name} at ${at(l)} failed: ${l.evidence ?? l.error ?? 'no figure could be measured'}.`,
          ),
        );
      if (l.status === 'Client-bound')
        out.push(
          flag(
            'client-bound',
            'warn',
            l,
            `Level ${name} at ${at(l)} is Client-bound: ${lagText(l)}, so part of every timing is the client's own and the level is not judged; ${CLIENT_BOUND_FIX} (docs/workloads.md "The client's lag").`,
          ),
        );
    }
    const unfinished = levels.filter((l) => l.requests.unfinished > 0);
    if (unfinished.length) {
      const drain =
        r.config.load && r.config.load.model !== 'closed' ? (r.config.load.drainTimeout ?? 60) : 60;
      out.push(
        flag(
          'unfinished',
          'warn',
          unfinished[0]!,
          `${name}: requests had not finished ${drain} s after the window closed (--drain-timeout) and were aborted: ` +
            `${joined(unfinished.map((l) => `${fmtInt(l.requests.unfinished)} of ${fmtInt(l.requests.arrived)} at ${at(l)}`))}. ` +
            `They count as missing the service level.`,
        ),
      );
    }
    const missed = levels.filter(
      (l) =>
        l.cache &&
        l.cache.servedTokens !== null &&
        l.cache.expectedTokens > 0 &&
        l.cache.servedTokens < CACHE_SERVED_SHARE * l.cache.expectedTokens,
    );
    if (missed.length) out.push(flag('prefix-cache', 'warn', missed[0]!, cacheText(r, name, missed)));
    const behind = levels.filter(
      (l) =>
        l.load.model !== 'closed' &&
        l.status !== 'Failed' &&
        l.status !== 'Client-bound' &&
        l.achievedRate < (1 - BEHIND_FRACTION) * l.offeredRate,
    );
    if (behind.length)
      out.push(
        flag(
          'behind',
          'warn',
          behind[0]!,
          `${name}: the server could not keep up with its arrivals: it completed ${joined(
            behind.map(
              (l) =>
                `${l.achievedRate.toFixed(2)} req/s of the ${l.offeredRate.toFixed(2)} offered at ${at(l)} (${pct(1 - l.achievedRate / l.offeredRate)} fewer)`,
            ),
          )}. While a server keeps up, it completes requests as fast as they arrive; below that, requests pile up in its queue and every wait grows with the window.`,
        ),
      );
  }
  return out;
}

// Served below cacheable: the prefix cache did not keep what the workload shared, and the engine's setting for it.
function cacheText(r: RunResult, name: string, levels: LoadLevel[]): string {
  const e = engineOf(r.engine.name);
  const each = joined(
    levels.map((l) => {
      const c = l.cache!;
      return `${fmtInt(c.servedTokens)} of ${fmtInt(c.expectedTokens)} at ${at(l)} (${pct(c.servedTokens! / c.expectedTokens)})`;
    }),
  );
  const source = levels.some((l) => l.cache!.source === 'metrics')
    ? " (its prefix-cache hit counter's rise)"
    : '';
  const { off, defaultOn } = e.prefixCache;
  const launched =
    off && r.launchCommand?.includes(off.split(' ')[0]!) ? ` The launch command turns it off (${off}).` : '';
  const setting =
    off && defaultOn
      ? `${e.display} keeps it on unless ${off}${launched ? '' : ' (check the launch command)'}`
      : defaultOn
        ? `${e.display} keeps it on, with no setting to turn it off`
        : `${e.display === 'the server' ? "The server's" : `${e.display}'s`} own settings decide what it keeps`;
  return (
    `${name}: the server served fewer prompt tokens from its prefix cache than the workload made cacheable${source}: ${each}. ` +
    `Its prefix cache did not keep the shared prompts: evicted to make room for running requests, or turned off.${launched} ` +
    `${setting}; a larger KV cache (${e.settings.kv.join(', ')}) keeps more of them.`
  );
}

export function findAnomalies(r: RunResult): Anomaly[] {
  const order = (a: Anomaly) => ['prefill', 'decode', 'level', 'run'].indexOf(a.phase);
  const all = [
    ...prefillOutliers(prefillPoints(r)),
    ...cellFlags(r),
    ...ttftOutliers(r),
    ...throughputDrops(r),
    ...levelFlags(r),
  ].sort(
    (a, b) =>
      order(a) - order(b) ||
      (a.contextTokens ?? 0) - (b.contextTokens ?? 0) ||
      (a.concurrency ?? 0) - (b.concurrency ?? 0),
  );
  const busy = machineBusy(r);
  if (busy) all.unshift(busy);
  // A stored warning a flag above already says, with its figures, is not said again as a note.
  const said = new Set(
    all.filter((a) => a.kind === 'prefill-repeat-outlier').map((a) => prefillRepeatWarning(a.contextTokens!)),
  );
  for (const w of r.warnings)
    if (!said.has(w)) all.push({ kind: 'warning', severity: 'info', phase: 'run', text: w });
  if (r.error)
    all.push({
      kind: 'failed',
      severity: 'error',
      phase: 'run',
      text: `Run ended with ${r.error.code}: ${r.error.message}`,
    });
  return all;
}

/** Anomalies keyed by decode cell, for heatmap markers. */
/** The prefill contexts flagged as outliers, for the tables and charts that mark them. */
export function prefillOutlierContexts(list: readonly Anomaly[]): Set<number> {
  return new Set(list.filter((a) => a.kind === 'prefill-outlier').map((a) => a.contextTokens!));
}

export function anomaliesByCell(list: Anomaly[]): Map<string, Anomaly[]> {
  const m = new Map<string, Anomaly[]>();
  for (const a of list) {
    if (a.phase !== 'decode' || a.contextTokens === undefined || a.concurrency === undefined) continue;
    const k = cellKey(a.contextTokens, a.concurrency);
    m.set(k, [...(m.get(k) ?? []), a]);
  }
  return m;
}
