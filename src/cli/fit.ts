import type { CliIo } from './io.js';
import type { Command } from 'commander';
import { BenchError } from '../errors.js';
import { cliCommand } from '../invocation.js';
import { withOptions } from '../config/resolve.js';
import { writeFileAtomic as writeOutput } from '../results/io.js';
import { resultReader } from './load-result.js';
import { planOfResults, twinSubset } from '../twin/choose.js';
import { fitReport } from '../twin/fit-report.js';
import { observe, selectObservations } from '../twin/observe.js';
import { fitTwin } from '../twin/twin.js';
import { twinYaml } from '../twin/twin-file.js';
import { cellKey } from '../cell-rules.js';

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('fit')
    .description('fit a sim profile (a twin of the server) to measured results; prints the fit quality')
    .argument(
      '<results...>',
      'result files, run folders or folders holding one run each (v0.6.2 text reports too), of one server',
    );
  const resolve = withOptions(cmd, 'fit');
  cmd.action((paths: string[], raw: Record<string, unknown>) => {
    const flags = resolve(raw).options;
    if (flags.twinCells && (flags.cells || flags.prefill))
      throw new BenchError(
        'USAGE',
        '--twin-cells picks the cells itself; give it or --cells/--prefill, not both.',
      );
    const read = resultReader(io);
    const results = paths.map((p) => ({ result: read(p), source: p }));
    // The same run given twice would count each of its cells twice in every least squares (docs/twin.md).
    const seen = new Map<string, string>();
    for (const r of results) {
      const earlier = seen.get(r.result.runId);
      if (earlier !== undefined)
        throw new BenchError(
          'USAGE',
          `${earlier} and ${r.source} are the same run (${r.result.runId}); pass each run once.`,
          flags.twinCells
            ? { hint: '--twin-cells takes no file: it picks its cells from the results given.' }
            : {},
        );
      seen.set(r.result.runId, r.source);
    }
    let obs = observe(results);
    const first = results[0]!.result;
    if (flags.twinCells) {
      obs = twinSubset(obs, first);
    } else if (flags.cells || flags.prefill) {
      obs = selectObservations(obs, {
        decode: new Set(flags.cells ?? obs.decode.map((d) => cellKey(d.contextTokens, d.concurrency))),
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
    io.stderr.write(
      `wrote ${flags.output}; predict the whole matrix with \`${cliCommand('predict', '--twin', flags.output)}\`\n`,
    );
  });
}
