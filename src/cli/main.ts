#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { BenchError, isBenchError } from '../errors.js';
import { terminalWidth, useColor } from '../report/terminal.js';
import { invokedAs, setInvocation } from '../invocation.js';
import { redactSecrets } from '../secrets.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { processIo, type CliIo } from './io.js';
import { isUsageMistake, usageError } from './usage-error.js';
import { register as registerCompare } from './compare.js';
import { register as registerDemo } from './demo.js';
import { register as registerDeploy } from './deploy.js';
import { register as registerFit } from './fit.js';
import { register as registerImport } from './import.js';
import { register as registerPlan } from './plan.js';
import { register as registerPredict } from './predict.js';
import { register as registerProbe } from './probe.js';
import { register as registerQuick } from './quick.js';
import { register as registerReport } from './report.js';
import { register as registerRun } from './run.js';
import { register as registerServe } from './serve.js';
import { register as registerShare } from './share.js';
import { register as registerSim } from './sim.js';
import { register as registerSweep } from './sweep.js';

export function buildProgram(io: CliIo = processIo()): Command {
  const program = new Command();
  program
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHelpWidth: () => terminalWidth(io.stdout),
      getErrHelpWidth: () => terminalWidth(io.stderr),
      getOutHasColors: () => useColor(io.stdout, io.env),
      getErrHasColors: () => useColor(io.stderr, io.env),
      outputError: () => undefined, // main() prints commander's errors as one USAGE line
    })
    .name(TOOL_NAME)
    .description('Speed test matrix for OpenAI-compatible LLM servers')
    .version(TOOL_VERSION)
    .option('--debug', 'print stack traces for errors')
    .showSuggestionAfterError(true)
    .exitOverride();
  for (const register of [
    registerQuick,
    registerRun,
    registerPlan,
    registerFit,
    registerPredict,
    registerProbe,
    registerReport,
    registerCompare,
    registerImport,
    registerSim,
    registerDemo,
    registerServe,
    registerDeploy,
    registerSweep,
    registerShare,
  ]) {
    register(program, io);
  }
  return program;
}

// The message ends as a sentence before a hint ("… holds no result.json. Pass …"), whoever threw it.
function sentence(message: string): string {
  return /[.!?]$/.test(message.trimEnd()) ? message : `${message.trimEnd()}.`;
}

// The one place that turns errors into exit codes and one-line messages (docs/architecture.md "Conventions"). Returns
// the exit code, so tests can run the CLI in-process with their own io.
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  setInvocation(io.invokedAs ?? invokedAs({ env: io.env }));
  const program = buildProgram(io);
  const debug = argv.includes('--debug');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (caught) {
    let e = caught;
    if (e instanceof CommanderError) {
      if (!isUsageMistake(e)) return e.exitCode; // help or version, already printed
      e = usageError(
        e,
        argv,
        program.commands.map((c) => c.name()),
      );
    }
    if (isBenchError(e)) {
      io.stderr.write(
        `error [${e.code}]: ${redactSecrets(e.hint ? sentence(e.message) : e.message)}${e.hint ? ` ${redactSecrets(e.hint)}` : ''}\n`,
      );
      if (debug && e.stack) io.stderr.write(redactSecrets(e.stack) + '\n');
      return e.exitCode;
    }
    const err = e instanceof Error ? e : new Error(String(e));
    io.stderr.write(
      `error [INTERNAL]: ${redactSecrets(err.message)} (this is a bug; rerun with --debug and report it)\n`,
    );
    if (debug && err.stack) io.stderr.write(redactSecrets(err.stack) + '\n');
    return 1;
  }
}

export { BenchError };
export type { CliIo, CliStream } from './io.js';

// Runs only as the bin (npm links it through a symlink), not when tests import buildProgram/main.
const invokedDirectly = (() => {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();

if (invokedDirectly) {
  // A reader that stops early (`| head`) closes the pipe: what it wanted is written, so end quietly, as Unix tools
  // do, instead of an unhandled EPIPE's stack trace. Results are written atomically, so nothing half-written stays.
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exit(0);
    });
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    () => {
      process.exitCode = 1;
    },
  );
}
