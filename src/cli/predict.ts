import { fsError } from '../fs-errors.js';
import type { CliIo } from './io.js';
import { join } from 'node:path';
import type { Command } from 'commander';
import { withOptions } from '../config/resolve.js';
import { renderReport } from '../report/index.js';
import { terminalWidth, useColor } from '../report/terminal.js';
import { writeResult } from '../results/io.js';
import { predict, type WhatIf } from '../twin/predict.js';
import { loadTwin } from '../twin/twin-file.js';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { BenchError } from '../errors.js';
import { cliCommand } from '../invocation.js';

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('predict')
    .description(
      "predict a whole matrix from a twin (fit's output): every status, an interval per figure, what-ifs",
    );
  const resolve = withOptions(cmd, 'predict');
  cmd.action((flags: Record<string, unknown>) => {
    const o = resolve(flags).options;
    const { profile, meta } = loadTwin(twinFileIn(o.twin, io));
    const whatIf: WhatIf = {
      ...(o.contexts ? { contexts: o.contexts } : {}),
      ...(o.prefillContexts ? { prefillContexts: o.prefillContexts } : {}),
      ...(o.concurrency ? { concurrency: o.concurrency } : {}),
      ...(o.maxOutput !== undefined ? { maxOutput: o.maxOutput } : {}),
      ...(o.duration !== undefined ? { windowS: o.duration } : {}),
      ...(o.kvCapacity ? { kvCapacity: o.kvCapacity } : {}),
      ...(o.maxNumSeqs !== undefined ? { maxNumSeqs: o.maxNumSeqs } : {}),
    };
    const result = predict(profile, meta, whatIf);
    const dir = o.out ?? `predicted-${profile.name}`;
    try {
      mkdirSync(dir, { recursive: true });
    } catch (e) {
      throw fsError('WRITE_FAILED', `cannot create ${dir}`, e);
    }
    const path = writeResult(dir, result);
    io.stdout.write(
      renderReport(result, o.format, {
        width: terminalWidth(io.stdout),
        color: useColor(io.stdout, io.env),
      }),
    );
    io.stderr.write(`wrote ${join(path)} (predicted)\n`);
  });
}

// --twin takes the twin file, or a folder holding exactly one (fit -o DIR/twin.yaml): which one is said on stderr.
function twinFileIn(path: string, io: CliIo): string {
  let names: string[];
  try {
    if (!statSync(path).isDirectory()) return path;
    names = readdirSync(path).filter((n) => /\.ya?ml$/.test(n));
  } catch {
    return path; // loadTwin says what is wrong with it
  }
  if (names.length === 1) {
    const file = join(path, names[0]!);
    io.stderr.write(`reading ${file}: the one twin file in ${path}\n`);
    return file;
  }
  if (names.length === 0)
    throw new BenchError('CONFIG_INVALID', `${path} is a folder that holds no twin file (.yaml).`, {
      hint: `Pass the file fit wrote (\`${cliCommand('fit', '--help')}\`).`,
    });
  throw new BenchError('USAGE', `${path} holds ${names.length} .yaml files; say which twin.`, {
    hint: `Pass one of ${names.map((n) => join(path, n)).join(', ')}.`,
  });
}
