import { fsError } from '../fs-errors.js';
import type { CliIo } from './io.js';
import { join } from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { REPORT_FORMATS, renderReport, type ReportFormat } from '../report/index.js';
import { terminalWidth, useColor } from '../report/terminal.js';
import { writeResult } from '../results/io.js';
import { predict, type WhatIf } from '../twin/predict.js';
import { loadTwin } from '../twin/twin-file.js';
import { positiveNumber, tokenList } from './fit.js';
import { parseFormat } from './report.js';
import { mkdirSync } from 'node:fs';

function capacityArg(v: string): { tokens: number } | { factor: number } {
  const m = /^\s*(\d+(?:\.\d+)?)\s*x\s*$/i.exec(v);
  if (m && Number(m[1]) > 0) return { factor: Number(m[1]) };
  const n = Number(v);
  if (Number.isInteger(n) && n > 0) return { tokens: n };
  throw new InvalidArgumentError(
    '--kv-capacity takes tokens (3000000) or a factor of the fitted capacity (1.5x)',
  );
}

function intList(v: string): number[] {
  return v.split(',').map((t) => {
    const n = Number(t);
    if (!Number.isInteger(n) || n < 1)
      throw new InvalidArgumentError(`--concurrency: "${t}" is not a positive integer`);
    return n;
  });
}

interface PredictFlags extends WhatIf {
  twin: string;
  out?: string;
  format: string;
  duration?: number;
}

export function register(program: Command, io: CliIo): void {
  program
    .command('predict')
    .description(
      "predict a whole matrix from a twin (fit's output): every status, an interval per figure, what-ifs",
    )
    .requiredOption('--twin <file>', 'the twin profile written by fit')
    .option('--out <dir>', 'write result.json here (default predicted-<twin name>)')
    .option('--format <format>', `print the prediction as: ${REPORT_FORMATS.join(', ')}`, 'txt')
    .option(
      '--contexts <list>',
      "decode contexts, e.g. 8K,32K,256K (default: the fitted run's)",
      tokenList('--contexts'),
    )
    .option(
      '--prefill-contexts <list>',
      'prefill contexts (default: the decode contexts)',
      tokenList('--prefill-contexts'),
    )
    .option('--concurrency <list>', 'concurrency levels, e.g. 1,16,256', intList)
    .option('--max-output <tokens>', 'output cap per request', positiveNumber('--max-output'))
    .option('--duration <seconds>', 'window length', positiveNumber('--duration'))
    .option('--kv-capacity <tokens|factor>', 'KV capacity: tokens, or 1.5x the fitted one', capacityArg)
    .option('--max-num-seqs <n>', 'max running sequences', positiveNumber('--max-num-seqs'))
    .action((flags: PredictFlags) => {
      const format = parseFormat<ReportFormat>(flags.format, REPORT_FORMATS);
      const { profile, meta } = loadTwin(flags.twin);
      const whatIf: WhatIf = {
        ...(flags.contexts ? { contexts: flags.contexts } : {}),
        ...(flags.prefillContexts ? { prefillContexts: flags.prefillContexts } : {}),
        ...(flags.concurrency ? { concurrency: flags.concurrency } : {}),
        ...(flags.maxOutput !== undefined ? { maxOutput: flags.maxOutput } : {}),
        ...(flags.duration !== undefined ? { windowS: flags.duration } : {}),
        ...(flags.kvCapacity ? { kvCapacity: flags.kvCapacity } : {}),
        ...(flags.maxNumSeqs !== undefined ? { maxNumSeqs: flags.maxNumSeqs } : {}),
      };
      const result = predict(profile, meta, whatIf);
      const dir = flags.out ?? `predicted-${profile.name}`;
      try {
        mkdirSync(dir, { recursive: true });
      } catch (e) {
        throw fsError('WRITE_FAILED', `cannot create ${dir}`, e);
      }
      const path = writeResult(dir, result);
      io.stdout.write(
        renderReport(result, format, {
          width: terminalWidth(io.stdout),
          color: useColor(io.stdout, io.env),
        }),
      );
      io.stderr.write(`wrote ${join(path)} (predicted)\n`);
    });
}
