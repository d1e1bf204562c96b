// bench:ingest — client CPU per 1,000 output tokens and receive delay (emitter write -> client stamp).
// Default: the runner's real request bodies per engine (buildRequestBody with each engine's extensions:
// vLLM with continuous usage at 1 and 4 tokens per chunk and with reasoning, then SGLang, llama.cpp, TGI,
// Ollama, TensorRT-LLM shapes) for our client beside the floor (raw node:net + hand parser) and a minimal
// node:http client, at 64 and 256 streams, with ratios to the floor. `--stacks` adds the older HTTP-stack
// comparison and `--matrix` the 1..4096-stream load matrix. Emitter in a child process pinned to one core,
// client pinned to the other where taskset exists. Each slot's first request is cut so that all of them end
// together just after the CPU window: the slots' re-sends are the burst whose first tokens give the TTFT error
// (bench/ingest-ttft.ts), outside the window the CPU is measured in. Prints a table, writes
// bench/out/ingest-<time>.json.
// Each repeat waits first for the 1-minute load average to fall under --max-load (default 1; up to --load-wait
// seconds, default 180: the bench's own last repeat keeps it up for a while) and records it; a repeat that
// started above it marks the run as not quiet. The end of the output says which transport the figures choose
// as the default (src/client/stream.ts DEFAULT_HTTP_CLIENT; docs/performance.md "Which transport is the default").
// Usage: npm run bench:ingest [-- --quick] [-- --nice] [-- --stacks] [-- --matrix] [-- --repeat=3]
//   [-- --only=<client substring>] [-- --engines=vllm,tgi] [-- --streams=64,256] [-- --max-load=1]
//   [-- --load-wait=180]
// The default-transport decision: npm run bench:ingest -- --nice --engines=vllm --streams=64,256 --repeat=3
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import { setMaxListeners } from 'node:events';
import { fileURLToPath } from 'node:url';
import { nowMs } from '../src/clock.js';
import { CLIENTS, ourClient, type Client } from './ingest-clients.js';
import { decodeBench } from './ingest-decode.js';
import { firstTokenFigures, type FirstTokenFigures, type SlotResult } from './ingest-ttft.js';
import type { Engine } from './ingest-shapes.js';
import { adapterByName } from '../src/target/engines/index.js';
import { buildRequestBody } from '../src/target/request-body.js';
import { benchArgs } from './lib/args.js';

const ARGS = benchArgs(
  {
    name: 'bench:ingest',
    about: 'Client CPU per 1,000 output tokens and receive delay, per engine stream shape.',
  },
  {
    quick: { type: 'flag', help: 'one repeat, shorter windows, 64 streams (a smoke check, not figures)' },
    nice: { type: 'flag', help: 'both processes at nice -19 where allowed' },
    stacks: { type: 'flag', help: 'add the older HTTP-stack comparison' },
    matrix: { type: 'flag', help: 'add the 1..4096-stream load matrix' },
    engines: { type: 'strings', help: "only these engines' stream shapes (e.g. vllm,tgi)" },
    streams: { type: 'numbers', help: 'stream counts; default 64,256, --quick 64' },
    n: { type: 'number', default: 64, help: 'streams of the --stacks comparison' },
    only: { type: 'string', help: 'only the clients whose name contains this' },
    repeat: { type: 'number', help: 'interleaved repeats; default 3, --quick 1' },
    'max-load': {
      type: 'number',
      default: 1,
      help: '1-minute load average to wait under before each repeat',
    },
    'load-wait': { type: 'number', default: 180, help: 'the longest wait for it, seconds' },
  },
);
const QUICK = ARGS.quick;
const STACKS = ARGS.stacks;
const MATRIX = ARGS.matrix;
const ENGINE_FILTER = ARGS.engines;
const STREAMS = ARGS.streams;
const MEASURE_MS = QUICK ? 1500 : 3000;
const STACKS_N = ARGS.n;
const ONLY = ARGS.only;
const REPEAT = ARGS.repeat ?? (QUICK ? 1 : 3);
const MAX_LOAD = ARGS['max-load'];
const LOAD_WAIT_S = ARGS['load-wait'];
// The bar for the lean client to stay the default (docs/performance.md "Which transport is the default").
const DEFAULT_BAR_X_FLOOR = 1.3;

/** Waits up to LOAD_WAIT_S for the 1-minute load average to fall under MAX_LOAD; says what it found. */
async function quietEnough(): Promise<{ loadBefore: number; waitedS: number; quiet: boolean }> {
  const t0 = Date.now();
  let load = os.loadavg()[0]!;
  while (load >= MAX_LOAD && Date.now() - t0 < LOAD_WAIT_S * 1000) {
    await sleep(5000);
    load = os.loadavg()[0]!;
  }
  return {
    loadBefore: round(load, 2),
    waitedS: Math.round((Date.now() - t0) / 1000),
    quiet: load < MAX_LOAD,
  };
}

interface RunSpec {
  group: 'engines' | 'matrix' | 'stacks';
  client: string;
  concurrency: number;
  tokensPerChunk: number;
  api: 'chat' | 'completions';
  engine?: Engine; // default vllm
  continuousUsage?: boolean; // default: what the runner asks this engine for
  reasoningTokens?: number;
}
interface RunOut extends RunSpec, FirstTokenFigures {
  intervalMs: number;
  windowMs: number;
  tokens: number;
  clientCpuMs: number;
  clientSysPct: number; // share of the client's CPU spent in the kernel (syscalls, epoll)
  cpuMsPer1kTokens: number;
  tokensPerCpuS: number;
  clientCpuPct: number;
  emitterCpuPct: number;
  delayP50Ms: number | null;
  delayP99Ms: number | null;
  delaySamples: number;
  streamsActiveAtOpen: number;
  emitterTickLateP50Ms: number | null; // the emitter's own lateness: context for the delay figures
  emitterTickLateP99Ms: number | null;
  resendsInCpuWindow: number; // re-sends written before the CPU window closed (the burst came early: 0 expected)
}

// Token interval per concurrency: about 6-10k tok/s in total so the one-core emitter keeps its schedule.
const intervalFor = (n: number) => (n <= 64 ? 10 : n <= 512 ? 50 : 400);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// The first requests end this long after the CPU window's planned close; the run waits for the re-sends'
// first tokens this long after that (plus a few token intervals), then aborts what is in flight.
const BURST_AFTER_CLOSE_MS = 200;
const FIRST_TOKEN_WAIT_MS = 500;

// --nice: both processes at nice -19 where allowed, so a shared machine's other tenants cannot starve them
// (CFS weight only: unlike real-time priority it cannot lock anyone out).
const NICE = ARGS.nice;

function pin(): { pinned: boolean; niced: boolean; emitterPrefix: string[] } {
  const prefix: string[] = [];
  let pinned = false;
  let niced = false;
  if (NICE) {
    try {
      os.setPriority(process.pid, -19);
      prefix.push('nice', '-n', '-19');
      niced = true;
    } catch {
      // not permitted: run at normal priority
    }
  }
  if (os.cpus().length >= 2 && existsSync('/usr/bin/taskset')) {
    try {
      execFileSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' });
      prefix.push('taskset', '-c', '1');
      pinned = true;
    } catch {
      // not allowed here: run unpinned
    }
  }
  return { pinned, niced, emitterPrefix: prefix };
}

class Emitter {
  private waiters = new Map<string, (m: Record<string, unknown>) => void>();
  constructor(readonly proc: ChildProcess) {
    proc.on('message', (m: Record<string, unknown>) => {
      const w = this.waiters.get(String(m.type));
      if (w) {
        this.waiters.delete(String(m.type));
        w(m);
      }
    });
  }
  ask(type: string, reply: string): Promise<Record<string, unknown>> {
    return new Promise((r) => {
      this.waiters.set(reply, r);
      this.proc.send({ type });
    });
  }
  static async start(prefix: string[]): Promise<{ e: Emitter; port: number }> {
    const file = fileURLToPath(new URL('./emitter.ts', import.meta.url));
    const prof = process.env.BENCH_EMITTER_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_EMITTER_PROF}`]
      : [];
    const cmd = [...prefix, process.execPath, ...prof, '--import', 'tsx', file];
    const proc = spawn(cmd[0]!, cmd.slice(1), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const e = new Emitter(proc);
    const ready = await new Promise<Record<string, unknown>>((r) => e.waiters.set('ready', r));
    return { e, port: Number(ready.port) };
  }
}

function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function runOne(
  spec: RunSpec,
  client: Client,
  emitter: Emitter,
  baseUrl: string,
  runNo: number,
): Promise<RunOut> {
  const intervalMs = intervalFor(spec.concurrency);
  const ac = new AbortController();
  setMaxListeners(0, ac.signal);
  const results: SlotResult[] = [];
  let stop = false;
  let seq = 0;
  const rampMs = 500 + spec.concurrency * 1 + 2 * intervalMs; // every stream has its first token
  const firstTicks = Math.ceil((rampMs + MEASURE_MS + BURST_AFTER_CLOSE_MS) / intervalMs);
  const firstCap = firstTicks * spec.tokensPerChunk;
  const body = runnerBody(spec, 512);
  const firstBody = runnerBody(spec, firstCap);
  const url = new URL(baseUrl);
  const shapedUrl = `${url.origin}/b/${spec.engine ?? 'vllm'}/${intervalMs}/${spec.tokensPerChunk}/${spec.reasoningTokens ?? 0}/v1`;
  const slot = async (i: number) => {
    for (let k = 0; !stop; k++) {
      const id = `run${runNo}-s${i}-${seq++}`;
      const r = await client({
        baseUrl: shapedUrl,
        api: spec.api,
        body: k === 0 ? firstBody : body,
        requestId: id,
        signal: ac.signal,
      });
      results.push({ id, resend: k > 0, r });
    }
  };
  const slotsAt = nowMs();
  const slots = Array.from({ length: spec.concurrency }, (_, i) => slot(i));
  await sleep(rampMs);
  await emitter.ask('cpu-mark', 'cpu-marked');
  const t0 = nowMs();
  const cpu0 = process.cpuUsage();
  await sleep(MEASURE_MS);
  const cpu = process.cpuUsage(cpu0);
  const t1 = nowMs();
  const emitterReport = await emitter.ask('cpu', 'cpu');
  const emitterCpu = Number(emitterReport.ms);
  const burstAt = slotsAt + (firstTicks + 1) * intervalMs;
  await sleep(Math.max(0, burstAt - nowMs()) + FIRST_TOKEN_WAIT_MS + 4 * intervalMs);
  stop = true;
  ac.abort();
  await Promise.all(slots);
  const collected = await emitter.ask('collect', 'writes');
  const writes = collected.writes as Record<string, number[]>;
  const arrivals = collected.arrivals as Record<string, number>;
  const firstTokens = firstTokenFigures(results, writes, arrivals);
  const resendsInCpuWindow = results.filter((x) => x.resend && (arrivals[x.id] ?? Infinity) < t1).length;

  let events = 0;
  let activeAtOpen = 0;
  const delays: number[] = [];
  for (const { id, r } of results) {
    const w = writes[id] ?? [];
    let before = false;
    r.chunks.forEach((c, i) => {
      if (c[0] < t0) before = true;
      if (c[0] < t0 || c[0] >= t1) return;
      events++;
      const wt = w[i];
      if (wt !== undefined) delays.push(c[0] - wt);
    });
    if (before && r.chunks.some((c) => c[0] >= t0)) activeAtOpen++;
  }
  delays.sort((a, b) => a - b);
  const windowMs = t1 - t0;
  const tokens = events * spec.tokensPerChunk;
  const clientCpuMs = (cpu.user + cpu.system) / 1000;
  return {
    ...spec,
    intervalMs,
    windowMs: Math.round(windowMs),
    tokens,
    clientCpuMs: round(clientCpuMs, 1),
    clientSysPct: round((cpu.system / 1000 / Math.max(1e-9, clientCpuMs)) * 100, 1),
    cpuMsPer1kTokens: round((clientCpuMs / Math.max(1, tokens)) * 1000, 2),
    tokensPerCpuS: Math.round(tokens / (clientCpuMs / 1000)),
    clientCpuPct: round((clientCpuMs / windowMs) * 100, 1),
    emitterCpuPct: round((emitterCpu / windowMs) * 100, 1),
    delayP50Ms: delays.length ? round(quantile(delays, 0.5)!, 3) : null,
    delayP99Ms: delays.length ? round(quantile(delays, 0.99)!, 3) : null,
    delaySamples: delays.length,
    streamsActiveAtOpen: activeAtOpen,
    emitterTickLateP50Ms:
      emitterReport.tickLateP50Ms === null ? null : round(Number(emitterReport.tickLateP50Ms), 3),
    emitterTickLateP99Ms:
      emitterReport.tickLateP99Ms === null ? null : round(Number(emitterReport.tickLateP99Ms), 3),
    ...firstTokens,
    resendsInCpuWindow,
  };
}

// The runner's own body for this engine; the bench's knobs ride in the URL (see emitter.ts).
function runnerBody(spec: RunSpec, maxTokens: number): Record<string, unknown> {
  const engine = spec.engine ?? 'vllm';
  const ext = adapterByName(engine).extensions;
  return buildRequestBody(
    {
      engine: { name: engine } as Parameters<typeof buildRequestBody>[0]['engine'],
      model: 'bench-model',
      extensions: { ...ext, continuousUsage: spec.continuousUsage ?? ext.continuousUsage },
    },
    { api: spec.api, prompt: 'Tell me a long story.', maxOutput: maxTokens, ignoreEos: true },
  );
}

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

const FLOOR = 'raw node:net floor';
const MINIMAL = 'node:http + session';
const OURS = 'ours';
const OURS_UNDICI = 'ours (undici)';

// The shapes the runner's requests produce, each beside the floor and the minimal client.
function engineSpecs(): RunSpec[] {
  const shapes: Array<Omit<RunSpec, 'group' | 'client' | 'concurrency' | 'api'>> = [
    { engine: 'vllm', tokensPerChunk: 1 },
    { engine: 'vllm', tokensPerChunk: 4 },
    { engine: 'vllm', tokensPerChunk: 1, reasoningTokens: 256 },
    { engine: 'sglang', tokensPerChunk: 1 },
    { engine: 'llamacpp', tokensPerChunk: 1 },
    { engine: 'tgi', tokensPerChunk: 1 },
    { engine: 'ollama', tokensPerChunk: 1 },
    { engine: 'trtllm', tokensPerChunk: 4 },
  ];
  const out: RunSpec[] = [];
  for (const concurrency of STREAMS ?? (QUICK ? [64] : [64, 256]))
    for (const shape of shapes) {
      if (ENGINE_FILTER && !ENGINE_FILTER.includes(shape.engine!)) continue;
      if (concurrency >= 256 && shape.engine !== 'vllm' && !ENGINE_FILTER) continue;
      for (const client of [FLOOR, MINIMAL, OURS, OURS_UNDICI])
        if (!ONLY || client.includes(ONLY))
          out.push({ group: 'engines', client, concurrency, api: 'chat', ...shape });
    }
  return out;
}

function specs(): RunSpec[] {
  const out: RunSpec[] = engineSpecs();
  if (STACKS)
    for (const name of Object.keys(CLIENTS))
      if (!ONLY || name.includes(ONLY))
        out.push({
          group: 'stacks',
          client: name,
          concurrency: STACKS_N,
          tokensPerChunk: 1,
          api: 'chat',
          continuousUsage: false,
        });
  if (!MATRIX) return out;
  const levels = QUICK ? [1, 64, 512] : [1, 64, 512, 4096];
  for (const concurrency of levels)
    for (const tokensPerChunk of [1, 4])
      for (const api of ['chat', 'completions'] as const)
        out.push({ group: 'matrix', client: OURS, concurrency, tokensPerChunk, api, continuousUsage: false });
  return out;
}

const shapeOf = (s: RunSpec) =>
  `${s.engine ?? 'vllm'}|${s.api}|${s.concurrency}|${s.tokensPerChunk}|${s.continuousUsage ?? ''}|${s.reasoningTokens ?? 0}`;
const keyOf = (s: RunSpec) => `${s.group}|${s.client}|${shapeOf(s)}`;
const median = (xs: number[]) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length === 0
    ? NaN
    : v.length % 2
      ? v[(v.length - 1) / 2]!
      : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
};

// Median of each figure over the repeats: the machine may be shared, and interleaving the configurations
// spreads interference across them instead of onto one.
function aggregate(runs: RunOut[]): RunOut & { repeats: number; cpuMsPer1kTokensAll: number[] } {
  const m = (f: (r: RunOut) => number | null) => {
    const xs = runs.map(f).filter((x): x is number => x !== null);
    return xs.length ? round(median(xs), 3) : null;
  };
  return {
    ...runs[0]!,
    tokens: m((r) => r.tokens)!,
    clientCpuMs: m((r) => r.clientCpuMs)!,
    clientSysPct: m((r) => r.clientSysPct)!,
    cpuMsPer1kTokens: m((r) => r.cpuMsPer1kTokens)!,
    tokensPerCpuS: Math.round(m((r) => r.tokensPerCpuS)!),
    clientCpuPct: m((r) => r.clientCpuPct)!,
    emitterCpuPct: m((r) => r.emitterCpuPct)!,
    delayP50Ms: m((r) => r.delayP50Ms),
    delayP99Ms: m((r) => r.delayP99Ms),
    delaySamples: runs.reduce((a, r) => a + r.delaySamples, 0),
    streamsActiveAtOpen: Math.min(...runs.map((r) => r.streamsActiveAtOpen)),
    emitterTickLateP50Ms: m((r) => r.emitterTickLateP50Ms),
    emitterTickLateP99Ms: m((r) => r.emitterTickLateP99Ms),
    ttftErrP50Ms: m((r) => r.ttftErrP50Ms),
    ttftErrP99Ms: m((r) => r.ttftErrP99Ms),
    ttftSamples: runs.reduce((a, r) => a + r.ttftSamples, 0),
    ttftMissing: runs.reduce((a, r) => a + r.ttftMissing, 0),
    sendErrP50Ms: m((r) => r.sendErrP50Ms),
    sendErrP99Ms: m((r) => r.sendErrP99Ms),
    sendSamples: runs.reduce((a, r) => a + r.sendSamples, 0),
    resendsInCpuWindow: runs.reduce((a, r) => a + r.resendsInCpuWindow, 0),
    repeats: runs.length,
    cpuMsPer1kTokensAll: runs.map((r) => r.cpuMsPer1kTokens),
  };
}

function shapeLabel(r: RunSpec): string {
  const engine = r.engine ?? 'vllm';
  const cu = r.continuousUsage ?? adapterByName(engine).extensions.continuousUsage;
  return `${engine}${cu ? ' +usage' : ''}${r.reasoningTokens ? ' +reasoning' : ''}`;
}

const ms = (x: number | null) => (x === null ? '-' : x.toFixed(2));

function line(r: RunOut, floor?: number): string {
  const label = `${r.client} · ${shapeLabel(r)}`;
  return [
    label.padEnd(50),
    r.api.padEnd(11),
    `N=${r.concurrency}`.padEnd(7),
    `tpc=${r.tokensPerChunk}`.padEnd(6),
    `${r.cpuMsPer1kTokens.toFixed(1)} ms/1k`.padStart(12),
    floor ? `(${(r.cpuMsPer1kTokens / floor).toFixed(2)}x floor)` : ''.padEnd(14),
    `${r.tokensPerCpuS.toLocaleString('en-US')} tok/cpu-s`.padStart(18),
    `delay p50 ${r.delayP50Ms?.toFixed(2)} p99 ${r.delayP99Ms?.toFixed(2)} ms`.padStart(30),
    `ttft err p50 ${ms(r.ttftErrP50Ms)} p99 ${ms(r.ttftErrP99Ms)} (n ${r.ttftSamples})`.padStart(34),
    `send err p50 ${ms(r.sendErrP50Ms)} p99 ${ms(r.sendErrP99Ms)}`.padStart(28),
    `client ${r.clientCpuPct}% emitter ${r.emitterCpuPct}% active ${r.streamsActiveAtOpen}/${r.concurrency}`,
  ].join(' ');
}

async function main() {
  const { pinned, niced, emitterPrefix } = pin();
  const { e, port } = await Emitter.start(emitterPrefix);
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const load0 = os.loadavg()[0]!;
  const byKey = new Map<string, RunOut[]>();
  const list = specs();
  let n = 0;
  // Warm the JIT and the connection pool before the first measured run.
  await runOne(
    { group: 'stacks', client: 'warm-up', concurrency: 64, tokensPerChunk: 1, api: 'chat' },
    ourClient,
    e,
    baseUrl,
    n++,
  );
  const loadChecks: Array<{ repeat: number; loadBefore: number; waitedS: number; quiet: boolean }> = [];
  for (let rep = 0; rep < REPEAT; rep++) {
    const check = await quietEnough();
    loadChecks.push({ repeat: rep + 1, ...check });
    process.stdout.write(
      `  [${rep + 1}/${REPEAT}] load ${check.loadBefore} after ${check.waitedS} s${check.quiet ? '' : ` (not under ${MAX_LOAD})`}\n`,
    );
    // The engine shapes and the stack comparison are repeated (interleaved); the load matrix runs once.
    for (const spec of rep === 0 ? list : list.filter((s) => s.group !== 'matrix')) {
      const r = await runOne(spec, CLIENTS[spec.client]!, e, baseUrl, n++);
      const k = keyOf(spec);
      byKey.set(k, [...(byKey.get(k) ?? []), r]);
      process.stdout.write(`  [${rep + 1}/${REPEAT}] ${line(r)}\n`);
    }
  }
  const rows = list.map((s) => aggregate(byKey.get(keyOf(s))!));
  const floor = rows.find((r) => r.group === 'stacks' && r.client === FLOOR)?.cpuMsPer1kTokens;
  const floorOf = (r: RunOut) =>
    r.group === 'engines'
      ? rows.find((x) => x.group === 'engines' && x.client === FLOOR && shapeOf(x) === shapeOf(r))
          ?.cpuMsPer1kTokens
      : r.group === 'stacks' || r.concurrency === 64
        ? floor
        : undefined;
  const ratios = rows
    .filter((r) => r.group === 'engines' && r.client === OURS)
    .map((r) => {
      const same = (c: string) =>
        rows.find((x) => x.group === 'engines' && x.client === c && shapeOf(x) === shapeOf(r));
      const f = same(FLOOR);
      const m = same(MINIMAL);
      return {
        shape: shapeLabel(r),
        streams: r.concurrency,
        tokensPerChunk: r.tokensPerChunk,
        cpuVsFloor: f ? round(r.cpuMsPer1kTokens / f.cpuMsPer1kTokens, 2) : null,
        cpuVsMinimal: m ? round(r.cpuMsPer1kTokens / m.cpuMsPer1kTokens, 2) : null,
        delayP50: r.delayP50Ms,
        minimalDelayP50: m?.delayP50Ms ?? null,
        delayP99: r.delayP99Ms,
        minimalDelayP99: m?.delayP99Ms ?? null,
        ttftErrP50: r.ttftErrP50Ms,
        minimalTtftErrP50: m?.ttftErrP50Ms ?? null,
        // The target (docs/performance.md "Ingest"): within 1 ms of the minimal client at 64 and 256 streams.
        ttftErrP50MinusMinimalMs:
          r.ttftErrP50Ms !== null && m?.ttftErrP50Ms != null
            ? round(r.ttftErrP50Ms - m.ttftErrP50Ms, 3)
            : null,
      };
    });
  const verdict = defaultVerdict(ratios, loadChecks);
  const decode = decodeBench();
  console.log(
    `\nIngest (median of ${REPEAT}; ${MEASURE_MS} ms windows; client pinned: ${pinned}; nice -19: ${niced}; load avg ${load0.toFixed(2)})`,
  );
  for (const r of rows) console.log(line(r, floorOf(r)));
  console.log(
    '\nOurs vs the floor and the minimal node:http client (CPU per 1k tokens; receive delay and TTFT error ms):',
  );
  for (const x of ratios)
    console.log(
      `  ${x.shape.padEnd(24)} N=${String(x.streams).padEnd(4)} tpc=${x.tokensPerChunk}  ${x.cpuVsFloor}x floor  ${x.cpuVsMinimal}x minimal  delay p50 ${x.delayP50} (minimal ${x.minimalDelayP50}) p99 ${x.delayP99} (minimal ${x.minimalDelayP99})  ttft err p50 ${x.ttftErrP50} (minimal ${x.minimalTtftErrP50}; ours − minimal ${x.ttftErrP50MinusMinimalMs})`,
    );
  console.log(
    "  TTFT error: first token of each re-send (all first requests end together just after the window) − the emitter's write of it.\n" +
      "  Send error: the emitter's first read of the request − the client's send stamp (loopback + the emitter getting to the read).",
  );
  console.log(`\n${verdict.text}`);
  console.log('\nDecode only (no network, one event per read), CPU ns per event:');
  for (const d of decode)
    console.log(`  ${d.variant.padEnd(48)} ${d.api.padEnd(20)} ${String(d.nsPerEvent).padStart(6)}`);
  e.proc.send({ type: 'exit' });
  const outDir = fileURLToPath(new URL('./out/', import.meta.url));
  mkdirSync(outDir, { recursive: true });
  const file = `${outDir}ingest-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  const doc = {
    bench: 'ingest',
    at: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    pinned,
    niced,
    loadAvgAtStart: load0,
    loadAvgAtEnd: os.loadavg()[0],
    measureMs: MEASURE_MS,
    repeats: REPEAT,
    floorCpuMsPer1kTokens: floor ?? null,
    maxLoad: MAX_LOAD,
    loadChecks,
    rows,
    ratios,
    defaultTransport: verdict,
    decode,
  };
  writeFileSync(file, JSON.stringify(doc, null, 2));
  console.log(`\nwrote ${file}`);
  process.exit(0);
}

// The lean client stays the default when, on a quiet machine, it stays at or under 1.3x the floor's CPU for the
// runner's vLLM shape at 1 and 4 tokens a chunk, 64 and 256 streams (and passes the conformance matrix, which
// the integration tier checks); otherwise undici takes its place.
function defaultVerdict(
  ratios: Array<{ shape: string; streams: number; tokensPerChunk: number; cpuVsFloor: number | null }>,
  loadChecks: Array<{ quiet: boolean }>,
): { bar: number; cells: typeof ratios; leanStays: boolean | null; quiet: boolean; text: string } {
  const cells = ratios.filter(
    (r) => r.shape === 'vllm +usage' && [1, 4].includes(r.tokensPerChunk) && [64, 256].includes(r.streams),
  );
  const quiet = loadChecks.every((c) => c.quiet);
  const complete = cells.length === 4 && cells.every((c) => c.cpuVsFloor !== null);
  const leanStays = complete ? cells.every((c) => c.cpuVsFloor! <= DEFAULT_BAR_X_FLOOR) : null;
  const list = cells.map((c) => `N=${c.streams} tpc=${c.tokensPerChunk} ${c.cpuVsFloor}x`).join(', ');
  const text =
    (!complete
      ? `Default transport: not decided (needs vLLM +usage at tpc 1 and 4, 64 and 256 streams; have: ${list || 'none'})`
      : `Default transport: ${leanStays ? 'lean stays' : 'undici (lean over the bar)'} — lean vs floor ${list}; bar ${DEFAULT_BAR_X_FLOOR}x`) +
    (quiet ? '' : `; NOT QUIET (load at or over ${MAX_LOAD} before a repeat): rerun before deciding`);
  return { bar: DEFAULT_BAR_X_FLOOR, cells, leanStays, quiet, text };
}

void main();
