import { BenchError } from '../errors.js';
import type { LoadConfig, WorkloadConfig } from '../results/schema.js';
import { DEFAULT_BLOCK_TOKENS, workloadLabel } from '../workloads/spec.js';
import type { Options } from './options.js';

// The traffic of a run (docs/workloads.md): what each request asks (config.workload) and when requests are sent
// (config.load), from the options that say so, with every combination that cannot mean anything refused in one
// line that says what to do. Pure: whether a --trace file is a Mooncake trace is read by the caller.

export type TrafficOptions = Pick<
  Options<'run'>,
  | 'workload'
  | 'rates'
  | 'arrival'
  | 'burstiness'
  | 'maxInFlight'
  | 'findRate'
  | 'searchWindows'
  | 'trace'
  | 'timeScale'
  | 'blockSize'
  | 'warmup'
  | 'drainTimeout'
  | 'concurrency'
  | 'repeats'
  | 'verifyCapacity'
  | 'prefillContexts'
>;

// What a --trace file holds besides its timestamps: Mooncake's hash ids (then it is the workload too), lengths
// (a lengths workload), or nothing else (a schedule for the workload given).
export type TraceKind = 'mooncake' | 'lengths' | 'schedule';

export interface Traffic {
  workload: WorkloadConfig;
  load: LoadConfig;
  // The run measures a closed loop: the fixed workload's prefill points and decode cells, another workload's
  // closed levels (--concurrency). An open loop or a trace alone measures none, unless --concurrency is given.
  closedLoop: boolean;
}

const usage = (message: string, hint: string) => new BenchError('USAGE', message, { hint });

// Options that shape arrivals at a rate or a trace's replay: meaningless under the closed loop alone.
const OPEN_ONLY = [
  ['arrival', '--arrival'],
  ['burstiness', '--burstiness'],
  ['maxInFlight', '--max-in-flight'],
  ['searchWindows', '--search-windows'],
] as const;

export function trafficOf(o: TrafficOptions, traceKind?: TraceKind): Traffic {
  const rates = o.rates ?? [];
  const open = rates.length > 0 || o.findRate === true;
  refuseScheduleClashes(o, rates, open);
  refuseStrayOptions(o, rates);
  const workload = workloadOf(o, traceKind);
  const closedLoop = (!open && o.trace === undefined) || (o.concurrency?.length ?? 0) > 0;
  refuseCellOptions(o, workload, closedLoop);
  return { workload, load: loadOf(o, rates, open), closedLoop };
}

// A --trace and a rate, or options that shape arrivals at a rate without one.
function refuseScheduleClashes(o: TrafficOptions, rates: readonly number[], open: boolean): void {
  if (o.trace !== undefined) {
    if (rates.length)
      throw usage(
        "--trace replays the trace's own schedule and --rates sets arrivals at a rate: give one.",
        'Drop --rates to replay the trace; to measure rates with its requests, pass the file as --workload mooncake:file=F instead of --trace.',
      );
    if (o.findRate)
      throw usage(
        '--find-rate searches arrival rates, and a --trace has its own schedule.',
        'Drop --trace, and pass a Mooncake file as --workload mooncake:file=F to search rates with its requests.',
      );
  }
  if (!open && o.trace === undefined) {
    const given = OPEN_ONLY.find(([k]) => o[k] !== undefined);
    if (given)
      throw usage(
        `${given[1]} shapes arrivals at a rate, and this run has none (a closed loop of --concurrency users).`,
        'Add --rates LIST (e.g. --rates 1,2,4) or --find-rate.',
      );
  }
  if (o.trace !== undefined) {
    const given = OPEN_ONLY.find(([k]) => o[k] !== undefined);
    if (given)
      throw usage(
        `${given[1]} shapes arrivals at a rate; a --trace replays its own timestamps.`,
        `Drop ${given[1]}, or measure rates with --rates instead of --trace.`,
      );
  }
}

// An option whose companion is missing, or which another one contradicts.
function refuseStrayOptions(o: TrafficOptions, rates: readonly number[]): void {
  if (o.timeScale !== undefined && o.trace === undefined)
    throw usage(
      '--time-scale replays a trace faster, and this run replays none.',
      'Add --trace FILE, or drop --time-scale.',
    );
  if (o.searchWindows !== undefined && !o.findRate)
    throw usage(
      '--search-windows bounds the search of --find-rate, which is not on.',
      'Add --find-rate, or drop --search-windows.',
    );
  if (o.findRate && rates.length > 1)
    throw usage(
      `--find-rate starts from one rate; --rates gives ${rates.length}.`,
      'Give --rates R alone (the first rate it measures), or leave --rates out: it starts from the closed loop, else 1 req/s.',
    );
  if (o.burstiness !== undefined && o.arrival !== undefined && o.arrival !== 'gamma')
    throw usage(
      `--burstiness is the gamma process's shape, and --arrival is ${o.arrival}.`,
      'Use --arrival gamma (or leave --arrival out: --burstiness implies it).',
    );
}

// The closed loop's cells' options on a run that measures none, or with a workload other than fixed.
function refuseCellOptions(o: TrafficOptions, workload: WorkloadConfig, closedLoop: boolean): void {
  if (!closedLoop) {
    const cellsOnly = [
      ...(o.repeats > 1 ? ['--repeats'] : []),
      ...(o.verifyCapacity ? ['--verify-capacity'] : []),
      ...(o.prefillContexts?.length ? ['--prefill-contexts'] : []),
    ];
    if (cellsOnly.length)
      throw usage(
        `${cellsOnly.join(' and ')} ${cellsOnly.length > 1 ? 'apply' : 'applies'} to the closed loop's cells, and this run measures ${o.trace !== undefined ? 'a trace' : 'rates'} alone.`,
        `Add --concurrency LIST to measure the closed loop too, or drop ${cellsOnly.join(' and ')}.`,
      );
  }
  if (workload.kind !== 'fixed' && (o.prefillContexts?.length || o.verifyCapacity))
    throw usage(
      `--prefill-contexts and --verify-capacity are the fixed workload's; --workload is ${workload.kind}.`,
      'Drop them: a workload other than fixed measures load levels, not prefill points and cells.',
    );
}

// When requests are sent: a trace's schedule, arrivals at the given rates, or the closed loop.
function loadOf(o: TrafficOptions, rates: number[], open: boolean): LoadConfig {
  const windows = { warmup: o.warmup, drainTimeout: o.drainTimeout };
  if (o.trace !== undefined)
    return { model: 'trace', trace: o.trace, timeScale: o.timeScale ?? 1, ...windows };
  if (open)
    return {
      model: 'open',
      rates,
      arrival: o.arrival ?? (o.burstiness !== undefined ? 'gamma' : 'poisson'),
      ...(o.burstiness !== undefined ? { burstiness: o.burstiness } : {}),
      ...(o.maxInFlight !== undefined ? { maxInFlight: o.maxInFlight } : {}),
      ...(o.findRate ? { findRate: true } : {}),
      ...(o.searchWindows !== undefined ? { searchWindows: o.searchWindows } : {}),
      ...windows,
    };
  return { model: 'closed' };
}

// The workload given, else the trace's own (a Mooncake trace, or lengths), else fixed; --block-size sets a
// Mooncake trace's block.
function workloadOf(o: TrafficOptions, traceKind: TraceKind | undefined): WorkloadConfig {
  const block = o.blockSize;
  const given = o.workload;
  if (given?.kind === 'mooncake') {
    if (block === undefined || block === given.block) return given;
    if (given.block !== DEFAULT_BLOCK_TOKENS)
      throw usage(
        `two block sizes: block=${given.block} in --workload and --block-size ${block}.`,
        'Give the block once: block= in --workload, or --block-size.',
      );
    return { ...given, block };
  }
  const fromTrace = o.trace !== undefined && given === undefined ? traceKind : undefined;
  if (block !== undefined && fromTrace !== 'mooncake')
    throw usage(
      `--block-size is the block of a Mooncake trace's hash ids, and the workload is ${given ? workloadLabel(given) : fromTrace === undefined ? 'fixed' : `the trace's ${fromTrace}`}.`,
      'Drop --block-size, or give a Mooncake trace (--trace F with hash_ids, or --workload mooncake:file=F).',
    );
  if (given) return given;
  if (fromTrace === 'mooncake')
    return { kind: 'mooncake', file: o.trace!, block: block ?? DEFAULT_BLOCK_TOKENS };
  if (fromTrace === 'lengths') return { kind: 'lengths', file: o.trace! };
  return { kind: 'fixed' };
}

// The traffic as the result stores it: nothing for the fixed workload's closed loop (a run as before this
// existed reads the same), config.workload and config.load otherwise.
export function trafficConfig(t: Traffic): { workload?: WorkloadConfig; load?: LoadConfig } {
  return {
    ...(t.workload.kind !== 'fixed' ? { workload: t.workload } : {}),
    ...(t.load.model !== 'closed' ? { load: t.load } : {}),
  };
}
