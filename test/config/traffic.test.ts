import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultSkeleton } from '../../src/bench/result-state.js';
import { levelRows, readTraffic } from '../../src/bench/traffic.js';
import { toRunSettings } from '../../src/cli/run-settings.js';
import { mergeResume } from '../../src/config/index.js';
import { trafficConfig, trafficOf, type TrafficOptions } from '../../src/config/traffic.js';
import { BenchError } from '../../src/errors.js';
import { buildPlan } from '../../src/plan/plan.js';
import { parseResult } from '../../src/results/schema.js';
import { runCliInProcess } from '../helpers/cli.js';
import { parseRunFlags } from '../helpers/parse-run.js';
import { bareTargetInfo } from '../helpers/target-info.js';

// The traffic options (docs/workloads.md): what they build into config.workload and config.load, each bad
// combination refused in one line with its fix, and the round trip through result.json that --resume reads.

const parse = parseRunFlags;
const options = (argv: string[]): TrafficOptions => parse(argv).options;

function refusal(argv: string[], traceKind?: 'mooncake' | 'lengths' | 'schedule'): BenchError {
  try {
    trafficOf(options(argv), traceKind);
  } catch (e) {
    if (e instanceof BenchError) return e;
    throw e;
  }
  throw new Error(`${argv.join(' ')} was taken`);
}

describe('trafficOf', () => {
  it('builds the load model and the workload, defaults written out', () => {
    expect(trafficOf(options([]))).toEqual({
      workload: { kind: 'fixed' },
      load: { model: 'closed' },
      closedLoop: true,
    });
    expect(trafficOf(options(['--rates', '0.5,2']))).toEqual({
      workload: { kind: 'fixed' },
      load: { model: 'open', rates: [0.5, 2], arrival: 'poisson', warmup: 10, drainTimeout: 60 },
      closedLoop: false,
    });
    // --burstiness implies gamma; --concurrency keeps the closed loop beside the rates.
    const t = trafficOf(
      options(['--rates', '4', '--burstiness', '0.5', '--concurrency', '1,8', '--max-in-flight', '6']),
    );
    expect(t.load).toMatchObject({ model: 'open', arrival: 'gamma', burstiness: 0.5, maxInFlight: 6 });
    expect(t.closedLoop).toBe(true);
    expect(trafficOf(options(['--find-rate', '--search-windows', '5'])).load).toMatchObject({
      model: 'open',
      rates: [],
      findRate: true,
      searchWindows: 5,
    });
    expect(
      trafficOf(options(['--trace', 't.jsonl', '--time-scale', '2', '--warmup', '0']), 'schedule'),
    ).toEqual({
      workload: { kind: 'fixed' },
      load: { model: 'trace', trace: 't.jsonl', timeScale: 2, warmup: 0, drainTimeout: 60 },
      closedLoop: false,
    });
  });

  it("takes a --trace's own workload: a Mooncake trace's blocks (--block-size), a length file's lengths", () => {
    expect(trafficOf(options(['--trace', 'm.jsonl', '--block-size', '256']), 'mooncake').workload).toEqual({
      kind: 'mooncake',
      file: 'm.jsonl',
      block: 256,
    });
    expect(trafficOf(options(['--trace', 'l.jsonl']), 'lengths').workload).toEqual({
      kind: 'lengths',
      file: 'l.jsonl',
    });
    // A workload given wins: the trace is then its schedule alone.
    const w = trafficOf(
      options(['--trace', 'm.jsonl', '--workload', 'shared-prefix:prefix=1K,suffix=128']),
      'mooncake',
    ).workload;
    expect(w).toEqual({ kind: 'shared-prefix', prefixes: 1, prefix: 1024, suffix: 128 });
    expect(
      trafficOf(options(['--workload', 'mooncake:file=m.jsonl', '--block-size', '1K', '--rates', '1']))
        .workload,
    ).toEqual({ kind: 'mooncake', file: 'm.jsonl', block: 1024 });
  });

  it('refuses every combination that cannot mean anything, saying what to do', () => {
    const cases: Array<[string[], RegExp, RegExp, ('mooncake' | 'schedule')?]> = [
      [['--trace', 't', '--rates', '1'], /--trace replays .* --rates sets .*: give one/, /Drop --rates/],
      [['--trace', 't', '--find-rate'], /--find-rate searches arrival rates/, /mooncake:file=F/],
      [['--burstiness', '0.5'], /--burstiness shapes arrivals at a rate, and this run has none/, /--rates/],
      [['--max-in-flight', '4'], /--max-in-flight shapes arrivals/, /--rates LIST/],
      [['--arrival', 'constant'], /--arrival shapes arrivals/, /--find-rate/],
      [['--trace', 't', '--arrival', 'gamma'], /replays its own timestamps/, /Drop --arrival/, 'schedule'],
      [['--time-scale', '2'], /--time-scale replays a trace faster/, /--trace FILE/],
      [['--rates', '1', '--search-windows', '4'], /bounds the search of --find-rate/, /Add --find-rate/],
      [['--find-rate', '--rates', '1,2'], /starts from one rate; --rates gives 2/, /--rates R alone/],
      [
        ['--rates', '1', '--arrival', 'poisson', '--burstiness', '2'],
        /gamma process's shape/,
        /--arrival gamma/,
      ],
      [
        ['--rates', '1', '--repeats', '3'],
        /--repeats applies to the closed loop's cells/,
        /--concurrency LIST/,
      ],
      [['--rates', '1', '--verify-capacity'], /--verify-capacity applies/, /--concurrency/],
      [['--workload', 'lengths:in=512', '--prefill-contexts', '1K'], /the fixed workload's/, /Drop them/],
      [
        ['--rates', '1', '--block-size', '256'],
        /--block-size is the block of a Mooncake trace/,
        /Drop --block-size/,
      ],
      [
        ['--rates', '1', '--workload', 'mooncake:file=m,block=1024', '--block-size', '256'],
        /two block sizes: block=1024 in --workload and --block-size 256/,
        /Give the block once/,
      ],
    ];
    for (const [argv, message, hint, kind] of cases) {
      const e = refusal(argv, kind);
      expect(e.message, argv.join(' ')).toMatch(message);
      expect(e.hint, argv.join(' ')).toMatch(hint);
      expect(e.message).not.toMatch(/\n/);
    }
  });

  it('stores nothing for the closed loop of the fixed workload (a result as before), the rest otherwise', () => {
    expect(trafficConfig(trafficOf(options([])))).toEqual({});
    expect(trafficConfig(trafficOf(options(['--workload', 'lengths:in=512', '--concurrency', '4'])))).toEqual(
      {
        workload: { kind: 'lengths', in: { dist: 'const', value: 512 } },
      },
    );
  });
});

describe('the traffic through result.json', () => {
  const dir = mkdtempSync(join(tmpdir(), 'traffic-'));
  const trace = join(dir, 'm.jsonl');
  writeFileSync(
    trace,
    [0, 400, 900]
      .map((t, i) =>
        JSON.stringify({ timestamp: t, input_length: 300, output_length: 8, hash_ids: [0, i + 1] }),
      )
      .join('\n'),
  );

  async function stored(argv: string[]) {
    const { options: o } = parse(argv);
    const settings = toRunSettings(o, undefined);
    const traffic = await readTraffic(settings);
    const plan = buildPlan({
      maxModelLen: 8192,
      maxOutput: settings.maxOutput,
      contexts: [1024],
      closedLoop: false,
    });
    const skeleton = resultSkeleton({
      runId: 'r',
      settings,
      baseUrl: 'http://127.0.0.1:9/v1',
      info: bareTargetInfo(),
      plan: { ...plan, levels: levelRows(traffic, plan, settings) },
      maxModelLen: 8192,
      kvCapacityTokens: undefined,
      startedAt: '2026-12-07T00:00:00.000Z',
      traffic,
    });
    return parseResult(JSON.parse(JSON.stringify(skeleton)));
  }

  it('--resume reads each traffic option back from config.load and config.workload', async () => {
    const argv = [
      '--rates',
      '1,2',
      '--arrival',
      'gamma',
      '--burstiness',
      '3',
      '--max-in-flight',
      '5',
      '--warmup',
      '4',
    ];
    const r = await stored(argv);
    expect(r.config.load).toEqual({
      model: 'open',
      rates: [1, 2],
      arrival: 'gamma',
      burstiness: 3,
      maxInFlight: 5,
      warmup: 4,
      drainTimeout: 60,
    });
    expect(r.config.workload).toBeUndefined();
    expect(r.config.concurrency).toEqual([]); // no closed loop
    const none = parse(['--resume', 'x']);
    const { options: back } = mergeResume(r, none.options, none.given);
    expect(trafficOf(back)).toEqual(trafficOf(parse(argv).options));
  });

  it("a Mooncake --trace's workload, block and schedule come back the same", async () => {
    const argv = ['--trace', trace, '--block-size', '256', '--time-scale', '0.5', '--warmup', '0'];
    const r = await stored(argv);
    expect(r.config.workload).toEqual({ kind: 'mooncake', file: trace, block: 256 });
    expect(r.config.load).toMatchObject({ model: 'trace', trace, timeScale: 0.5, warmup: 0 });
    const none = parse(['--resume', 'x']);
    const { options: back } = mergeResume(r, none.options, none.given);
    expect(trafficOf(back, 'mooncake')).toEqual(trafficOf(parse(argv).options, 'mooncake'));
  });

  it('the CLI says a bad combination in one line with its fix, before any server is asked', async () => {
    const r = await runCliInProcess([
      'run',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--trace',
      trace,
      '--rates',
      '2',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error \[USAGE\]: --trace replays .*give one\. Drop --rates/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
