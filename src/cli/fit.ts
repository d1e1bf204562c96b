import type { CliIo } from './io.js';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { BenchError } from '../errors.js';
import { parseTokenCount } from '../plan/contexts.js';
import { writeFileAtomic as writeOutput } from '../results/io.js';
import { loadResult } from '../results/read.js';
import { planOfResults, twinSubset } from '../twin/choose.js';
import { fitReport } from '../twin/fit-report.js';
import { observe, selectObservations } from '../twin/observe.js';
import { fitTwin } from '../twin/twin.js';
import { twinYaml } from '../twin/twin-file.js';

export function positiveNumber(name: string, integer = true) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0 || (integer && (!Number.isInteger(n) || n < 1)))
      throw new InvalidArgumentError(`${name} must be ${integer ? 'a positive integer' : 'a number >= 0'}`);
    return n;
  };
}

export function tokenList(name: string) {
  return (v: string): number[] =>
    v.split(',').map((t) => {
      const n = parseTokenCount(t);
      if (n === undefined)
        throw new InvalidArgumentError(`${name}: "${t}" is not a token count like 8K or 32768`);
      return n;
    });
}

/** "8Kx1,8Kx16,1019Kx2" -> keys "8192x1", ... */
function cellList(v: string): string[] {
  return v.split(',').map((t) => {
    const m = /^\s*([^x×]+)\s*[x×]\s*(\d+)\s*$/.exec(t);
    const c = m ? parseTokenCount(m[1]!) : undefined;
    if (!m || c === undefined)
      throw new InvalidArgumentError(`--cells: "${t}" is not a cell like 8Kx16 (context x concurrency)`);
    return `${c}x${Number(m[2])}`;
  });
}

interface FitFlags {
  output: string;
  cells?: string[];
  prefill?: number[];
  twinCells?: boolean;
  kvCapacity?: number;
  maxNumSeqs?: number;
  contextSlope?: number;
  name?: string;
}

export function register(program: Command, io: CliIo): void {
  program
    .command('fit')
    .description('fit a sim profile (a twin of the server) to measured results; prints the fit quality')
    .argument('<results...>', 'result files or run directories (v0.6.2 text reports too), of one server')
    .requiredOption('-o, --output <file>', 'write the twin here (a sim profile, e.g. twin.yaml)')
    .option('--cells <list>', 'fit only these decode cells, e.g. 8Kx1,8Kx16,1019Kx2', cellList)
    .option('--prefill <list>', 'fit only these prefill points, e.g. 8K,128K,1024K', tokenList('--prefill'))
    .option(
      '--twin-cells',
      'fit only the cells and prefill points `plan --for-twin` picks (judge a twin against the rest)',
    )
    .option(
      '--kv-capacity <tokens>',
      'the KV capacity, where the results cannot pin it',
      positiveNumber('--kv-capacity'),
    )
    .option(
      '--max-num-seqs <n>',
      'the max running sequences, where no cell queued',
      positiveNumber('--max-num-seqs'),
    )
    .option(
      '--context-slope <ms>',
      'decode ms per million context tokens in the batch, where one context was measured',
      positiveNumber('--context-slope', false),
    )
    .option('--name <name>', 'profile name (default twin-<model>)')
    .action((paths: string[], flags: FitFlags) => {
      if (flags.twinCells && (flags.cells || flags.prefill))
        throw new BenchError(
          'USAGE',
          '--twin-cells picks the cells itself; give it or --cells/--prefill, not both.',
        );
      const results = paths.map((p) => ({ result: loadResult(p), source: p }));
      let obs = observe(results);
      const first = results[0]!.result;
      if (flags.twinCells) {
        obs = twinSubset(obs, first);
      } else if (flags.cells || flags.prefill) {
        obs = selectObservations(obs, {
          decode: new Set(flags.cells ?? obs.decode.map((d) => `${d.contextTokens}x${d.concurrency}`)),
          prefill: new Set(flags.prefill ?? obs.prefill.map((p) => p.contextTokens)),
        });
      }
      const twin = fitTwin(obs, planOfResults(results.map((r) => r.result)), {
        ...(flags.name ? { name: flags.name } : {}),
        ...(flags.kvCapacity !== undefined ? { kvCapacityTokens: flags.kvCapacity } : {}),
        ...(flags.maxNumSeqs !== undefined ? { maxNumSeqs: flags.maxNumSeqs } : {}),
        ...(flags.contextSlope !== undefined ? { contextSlopeMsPerMTokens: flags.contextSlope } : {}),
      });
      writeOutput(flags.output, twinYaml(twin));
      io.stdout.write(fitReport(twin));
      io.stderr.write(`wrote ${flags.output}\n`);
    });
}
