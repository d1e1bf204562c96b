// The real runner against the sim's engine in virtual time: one VirtualClock drives both sides, requests go
// through the sim's handler in memory (no sockets) and are decoded by the client's own StreamSession, and time
// only moves when both sides are idle, to the next timer either one set. A run of minutes takes milliseconds of
// CPU and gives the same figures on every machine, however busy.
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sessionOptionsOf, StreamSession } from '../../src/client/decode/stream-session.js';
import type { StreamRequestOptions } from '../../src/client/stream.js';
import { DEFAULT_IDLE_TIMEOUT_MS, firstTokenTimeoutMs } from '../../src/client/transport/timeouts.js';
import type { RequestRecord } from '../../src/client/types.js';
import type { StreamFn } from '../../src/bench/drive/context.js';
import { Sender } from '../../src/bench/drive/sender.js';
import { runLevel, type LevelRunSpec, type SessionsOn } from '../../src/bench/run-level.js';
import type { LevelSpec } from '../../src/load/index.js';
import { preparePromptBank, type PromptBankSnapshot } from '../../src/prompts/index.js';
import { readWorkload, type WorkloadSpec } from '../../src/workloads/index.js';
import { createPromptSource } from '../../src/bench/prompt-source.js';
import { BenchRun, type BenchRunDeps, type RunOutcome } from '../../src/bench/run.js';
import type { RunSettings } from '../../src/bench/settings.js';
import { withDefaults } from '../../src/config/options.js';
import type { RunResult, ServerSample } from '../../src/results/schema.js';
import { VirtualClock } from '../../src/sim/clock.js';
import type { SimContext } from '../../src/sim/context.js';
import { handle } from '../../src/sim/handler.js';
import { createSimContext, type SimOptions } from '../../src/sim/server.js';
import { countChatTokens, countTokens } from '../../src/sim/tokenizer.js';
import type { Writer } from '../../src/sim/writer.js';
import { adapterByName } from '../../src/target/engines/index.js';
import type { TargetInfo } from '../../src/target/types.js';
import type { MetricsSampler } from '../../src/target/metrics-sampler.js';

export const VIRTUAL_START_MS = Date.UTC(2026, 0, 1);
const BASE_URL = 'http://127.0.0.1:9/v1'; // never dialled: the transport is in memory

// A middlebox between the sim and the client that holds the stream back (docs/method.md "Streams held back"): it
// collects what the server writes and passes it on every `flushEveryMs` from the request's send (a proxy that
// coalesces writes), or only at the end of the response (Infinity: a filter that holds the whole answer).
export interface StreamHold {
  flushEveryMs: number;
}

// One streamed request through the sim's handler: the writer's bytes go straight into the client's session,
// stamped with the virtual time they were written at. Timeouts are the client's (first token, idle) on the
// virtual clock; an abort is a client disconnect the sim sees.
export function memoryStream(sim: SimContext, clock: VirtualClock, hold?: StreamHold): StreamFn {
  return (opts: StreamRequestOptions) =>
    new Promise<RequestRecord>((resolve) => {
      const session = new StreamSession(sessionOptionsOf(opts));
      const sentAtMs = clock.now();
      const closeFns: Array<() => void> = [];
      let settled = false;
      let cancelTimer = () => {};
      let sawFirst = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        cancelTimer();
        opts.signal?.removeEventListener('abort', onAbort);
        resolve(session.record(sentAtMs, clock.now()));
      };
      const stop = (kind: 'aborted' | 'timeout_first_token' | 'timeout_idle', message: string) => {
        if (settled) return;
        session.fail(kind, message);
        finish();
        for (const fn of closeFns) fn();
      };
      const onAbort = () => stop('aborted', 'aborted by the caller');
      const firstMs = opts.timeouts?.firstTokenMs ?? firstTokenTimeoutMs(0);
      const idleMs = opts.timeouts?.idleMs ?? DEFAULT_IDLE_TIMEOUT_MS;
      const arm = () => {
        cancelTimer();
        const deadline =
          session.firstTokenAtMs === undefined ? sentAtMs + firstMs : (session.lastTokenAtMs ?? 0) + idleMs;
        cancelTimer = clock.setTimer(() => {
          if (settled) return;
          if (session.firstTokenAtMs === undefined) stop('timeout_first_token', 'first token timeout');
          else if (clock.now() - (session.lastTokenAtMs ?? 0) >= idleMs) stop('timeout_idle', 'idle timeout');
          else arm();
        }, deadline - clock.now());
      };
      if (opts.signal?.aborted) return stop('aborted', 'aborted by the caller before sending');
      if (opts.signal) {
        setMaxListeners(0, opts.signal); // one listener per request in flight, as the real client
        opts.signal.addEventListener('abort', onAbort, { once: true });
      }
      arm();
      const data = (text: string) => {
        if (settled || text.length === 0) return;
        session.data(Buffer.from(text), clock.now());
        if (!sawFirst && session.firstTokenAtMs !== undefined) {
          sawFirst = true;
          arm();
          opts.onFirstToken?.(session.firstTokenAtMs);
        }
        if (session.stopped) finish();
      };
      // The middlebox: the server's send times stay the truth; the client reads at the flushes.
      let pending = '';
      let cancelFlush: (() => void) | undefined;
      const flush = () => {
        cancelFlush = undefined;
        const text = pending;
        pending = '';
        data(text);
      };
      const pass = (text: string) => {
        if (!hold) return data(text);
        pending += text;
        if (cancelFlush || !Number.isFinite(hold.flushEveryMs)) return;
        const every = hold.flushEveryMs;
        cancelFlush = clock.setTimer(flush, every - ((clock.now() - sentAtMs) % every));
      };
      closeFns.push(() => cancelFlush?.());
      let headSent = false;
      let ended = false;
      const writer: Writer = {
        head(status, headers) {
          if (headSent) return;
          headSent = true;
          session.headers(status, headers['content-type'], clock.now());
        },
        get headSent() {
          return headSent;
        },
        write(text) {
          pass(text);
          return clock.now();
        },
        end(text) {
          if (ended) return clock.now();
          ended = true;
          if (text !== undefined) pass(text);
          cancelFlush?.();
          if (pending) flush(); // the upstream's end flushes what is held
          if (!settled) {
            session.end(clock.now());
            finish();
          }
          return clock.now();
        },
        destroy() {
          ended = true;
          if (settled) return;
          session.fail('stream_truncated', 'connection lost mid-stream');
          finish();
        },
        get closed() {
          return ended || settled;
        },
        onClose(fn) {
          closeFns.push(fn);
        },
      };
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (opts.requestId !== undefined) headers['x-request-id'] = opts.requestId;
      if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
      const path = opts.api === 'chat' ? '/v1/chat/completions' : '/v1/completions';
      const body = JSON.stringify({ ...opts.body, stream: true });
      handle(sim, { method: 'POST', url: path, headers, body, arrivalMs: clock.now() }, writer);
    });
}

// What the probe would find on the sim (fixed here: the probe is not part of the runner under test).
export function simTargetInfo(sim: SimContext, over: Partial<TargetInfo> = {}): TargetInfo {
  const p = sim.profile;
  return {
    engine: { name: 'vllm', version: p.engine.version },
    models: [p.servedModelName],
    model: p.servedModelName,
    maxModelLen: p.maxModelLen,
    kvCapacityTokens: p.kvCapacityTokens,
    metricsAvailable: false,
    extensions: adapterByName('vllm').extensions, // what a probe of the sim's default flavor finds
    // The sim's own count, as its /tokenize answers (chat template included).
    tokenize: async (text, api) =>
      api === 'chat' ? countChatTokens([{ role: 'user', content: text }], p.chatTemplate) : countTokens(text),
    tokenizeAvailable: true,
    hardware: { source: 'none' },
    ...over,
  };
}

// The server's metrics read straight from the sim's engine on the virtual clock, as a scrape of its /metrics would
// give them: running and waiting requests, KV usage, speculative and prefix-cache counters. `waiting: false`: a
// server that exports no waiting gauge.
export function engineSampler(
  sim: SimContext,
  clock: VirtualClock,
  intervalMs: number,
  gauges: { waiting?: boolean } = {},
): MetricsSampler {
  let origin = 0;
  let samples: ServerSample[] = [];
  let cancel = () => {};
  const read = (): ServerSample => {
    const s = sim.engine.sched;
    const c = s.counters;
    return {
      tMs: clock.now() - origin,
      running: s.running.length,
      ...(gauges.waiting === false ? {} : { waiting: s.waitingAt(clock.now()) }),
      kvUsage: s.kv.usage,
      specAcceptedTokens: c.specAcceptedTokens,
      specDraftTokens: c.specDraftTokens,
      specDrafts: c.specDrafts,
      prefixCacheHits: s.kv.hits,
      prefixCacheQueries: s.kv.queries,
    };
  };
  const tick = () => {
    samples.push(read());
    cancel = clock.setTimer(tick, intervalMs);
  };
  return {
    start(windowOpenMs) {
      cancel();
      origin = windowOpenMs;
      samples = [];
      tick();
    },
    stop() {
      cancel();
      const out = samples;
      samples = [];
      return Promise.resolve(out);
    },
    snapshot: () => Promise.resolve(read()),
  };
}

// Steps time while the run lives: let every pending callback settle (one macrotask turn drains the microtasks),
// then fire the earliest timer. Bounded: a run that waits on nothing would otherwise spin forever.
export async function drive<T>(clock: VirtualClock, work: Promise<T>, maxSteps = 5_000_000): Promise<T> {
  let done = false;
  const watched = work.finally(() => {
    done = true;
  });
  watched.catch(() => {});
  for (let i = 0; i < maxSteps && !done; i++) {
    await new Promise((r) => setImmediate(r));
    if (done) break;
    const at = clock.nextAtMs();
    if (at === undefined) throw new Error('virtual run stalled: it waits on something no timer will bring');
    clock.advanceTo(at);
  }
  if (!done) throw new Error(`virtual run did not finish within ${maxSteps} steps`);
  return watched;
}

export interface VirtualRun {
  outcome?: RunOutcome;
  error?: unknown;
  result: RunResult; // as saved to result.json
  dir: string;
  sim: SimContext;
}

export interface VirtualRunOptions {
  sim?: Omit<SimOptions, 'clock'>;
  hold?: StreamHold; // a middlebox between the sim and the client that holds the stream back
  metrics?: { waiting?: boolean }; // scrape the sim's engine (engineSampler) every --metrics-interval
  info?: Partial<TargetInfo>;
  deps?: Partial<BenchRunDeps>;
  onStart?: (run: BenchRun) => void;
}

export function virtualSettings(out: string, over: Partial<RunSettings> = {}): RunSettings {
  return withDefaults<'run', RunSettings>('run', {
    baseUrl: BASE_URL,
    maxOutput: 64,
    duration: 2,
    prefillRepeats: 2,
    settleTimeout: 5,
    settlePause: 0.5,
    seed: 7,
    out,
    runId: 'virtual',
    reports: false,
    ...over,
  });
}

export interface VirtualRig {
  clock: VirtualClock;
  sim: SimContext;
  deps: BenchRunDeps; // the virtual clock, the in-memory transport, the sim's target info
  drive<T>(work: Promise<T>): Promise<T>; // runs virtual time until `work` settles
}

// The runner's seams on one sim and virtual clock: the in-memory transport, the sim's target info, its engine
// scraped where `metrics` is given (a sweep gives each of its configurations' runs these, one sim per server).
export function simRunDeps(
  sim: SimContext,
  clock: VirtualClock,
  o: Pick<VirtualRunOptions, 'hold' | 'metrics' | 'info'> = {},
): BenchRunDeps {
  const info = simTargetInfo(sim, { ...(o.metrics ? { metricsAvailable: true } : {}), ...o.info });
  const gauges = o.metrics;
  return {
    clock,
    stream: memoryStream(sim, clock, o.hold),
    probe: async () => info,
    createSampler: gauges
      ? (_info, _url, _key, intervalMs) => engineSampler(sim, clock, intervalMs, gauges)
      : () => undefined,
    createPrompts: createPromptSource,
    clientMonitor: () => undefined, // a virtual window is not real time: the client's load says nothing
  };
}

// One sim and one virtual clock for any number of runs (a rig can start the same BenchRun twice).
export function virtualRig(o: Omit<VirtualRunOptions, 'onStart'> = {}): VirtualRig {
  const clock = new VirtualClock(VIRTUAL_START_MS);
  const sim = createSimContext({ profile: 'tiny', seed: 1, ...o.sim, clock });
  const deps: BenchRunDeps = { ...simRunDeps(sim, clock, o), ...o.deps };
  return { clock, sim, deps, drive: (work) => drive(clock, work) };
}

// Runs BenchRun to its end in virtual time; a run that ends in a BenchError still returns its saved result.
export async function runVirtual(settings: RunSettings, o: VirtualRunOptions = {}): Promise<VirtualRun> {
  const rig = virtualRig(o);
  const run = new BenchRun(settings, rig.deps);
  o.onStart?.(run);
  let outcome: RunOutcome | undefined;
  let error: unknown;
  try {
    outcome = await rig.drive(run.start());
  } catch (e) {
    error = e;
  }
  const dir = outcome?.dir ?? settings.resume ?? join(settings.out, settings.runId ?? '');
  const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
  const sim = rig.sim;
  return { ...(outcome ? { outcome } : {}), ...(error !== undefined ? { error } : {}), result, dir, sim };
}

// One load level through the real session loop (src/bench/run-level.ts runLevel) on the sim's engine in virtual
// time, with the prompt bank measured on the sim's tokenizer: what the runner's level phase runs, without the run
// around it. The rig keeps every body sent and every answer a conversation kept, by request id.
export interface LevelRig {
  rig: VirtualRig;
  sender: Sender;
  bank: PromptBankSnapshot;
  bodies: Map<string, Record<string, unknown>>; // request id -> the body sent
  answers: Map<string, string>; // request id -> the answer's text, where the session kept it
  run(spec: LevelRunSpec, sessionsOn?: SessionsOn): Promise<Awaited<ReturnType<typeof runLevel>>>;
}

export async function levelRig(
  sim: NonNullable<Parameters<typeof virtualRig>[0]>['sim'] = {},
): Promise<LevelRig> {
  const rig = virtualRig({ sim: { seed: 5, ...sim } });
  const info = simTargetInfo(rig.sim);
  const bodies = new Map<string, Record<string, unknown>>();
  const answers = new Map<string, string>();
  const inner = memoryStream(rig.sim, rig.clock);
  const stream: StreamFn = async (opts) => {
    bodies.set(opts.requestId!, opts.body);
    const r = await inner(opts);
    if (r.text !== undefined) answers.set(opts.requestId!, r.text);
    return r;
  };
  const sender = new Sender(
    { baseUrl: BASE_URL, api: 'chat', ignoreEos: true, sampling: {}, idPrefix: 'lv' },
    info,
    { prompt: async (c: number, slot: number) => ({ text: `slot ${slot} `.repeat(c / 3), estTokens: c }) },
    stream,
    rig.clock,
  );
  const bank = await preparePromptBank({
    runId: 'levels',
    seed: 7,
    baseUrl: BASE_URL,
    model: info.model,
    api: 'chat',
    tokenize: (t) => info.tokenize!(t, 'chat'),
  });
  return {
    rig,
    sender,
    bank,
    bodies,
    answers,
    run: (spec, sessionsOn) =>
      rig.drive(
        runLevel(sender, rig.clock, spec, undefined, new AbortController().signal, undefined, sessionsOn),
      ),
  };
}

const workloadOf = (w: string): WorkloadSpec => {
  const r = readWorkload(w);
  if (typeof r === 'string') throw new Error(r);
  return r;
};

// An open level of a workload given as --workload writes it, at `rate` arrivals a second over warm-up + window.
export function openLevel(o: {
  workload: string;
  rate: number;
  arrival?: 'poisson' | 'constant';
  warmupMs: number;
  durationMs: number;
  maxOutput: number;
  contextTokens?: number;
}): LevelSpec {
  return {
    runId: 'levels',
    seed: 11,
    row: o.contextTokens !== undefined ? String(o.contextTokens) : o.workload,
    key: `${o.workload}@${o.rate}/s`,
    load: { model: 'open', rate: o.rate, arrival: o.arrival ?? 'poisson' },
    horizonMs: o.warmupMs + o.durationMs,
    workload: { spec: workloadOf(o.workload) },
    maxOutput: o.maxOutput,
    ...(o.contextTokens !== undefined ? { contextTokens: o.contextTokens } : {}),
  };
}

// What runLevel is given for it: sessions tagged as a level's, the bank, the window and an optional cap.
export const levelRun = (
  level: LevelSpec,
  bank: PromptBankSnapshot,
  o: { warmupMs: number; durationMs: number; maxInFlight?: number },
): LevelRunSpec => ({
  drive: {
    cell: level.key,
    label: level.key,
    level,
    firstTokenTimeoutMs: 60_000,
    tagSessions: true,
    bank,
    ...(o.maxInFlight !== undefined ? { maxInFlight: o.maxInFlight } : {}),
  },
  label: `level ${level.key}`,
  durationMs: o.durationMs,
  warmupMs: o.warmupMs,
  drainTimeoutMs: 10_000,
});
