import type { CliIo } from './io.js';
import type { Command } from 'commander';
import type { BenchRunDeps, RunOutcome } from '../bench/run.js';
import { RunEndedWithError } from '../bench/ended-with-error.js';
import { agentRole, coordinate, runAsAgent } from './agents.js';
import type { RunInput } from '../bench/settings.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Options, OptionKey } from '../config/options.js';
import { withOptions } from '../config/resolve.js';
import { mergeResume, resumeWarning } from '../config/stored.js';
import { RESULT_FILE } from '../results/io.js';
import { readResult } from '../results/read.js';
import { BenchError } from '../errors.js';
import { doneCountsText, toMeasure } from '../plan/counts.js';
import { cliCommand } from '../invocation.js';
import { chooseProgress, type ProgressSink } from '../progress/index.js';
import { resolveApiKey } from './api-key.js';
import { toRunSettings } from './run-settings.js';
import { machineBusy } from '../report/anomalies.js';
import { renderAnswerText, wrap } from '../report/text.js';
import { finishedRunAnalysis } from './run-analysis.js';
import { terminalWidth, useColor } from '../report/terminal.js';

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('run')
    .description(
      'measure a server: prefill by context, sustained decode by concurrency; writes <out>/<runId>/result.json',
    );
  const resolve = withOptions(cmd, 'run');
  cmd.action(async (flags: Record<string, unknown>) => {
    const { options, given } = resolve(flags);
    const o = resumed(options, given, io);
    const role = agentRole(o, io.env);
    const apiKey = resolveApiKey({ apiKey: o.apiKey, apiKeyFile: o.apiKeyFile, env: io.env });
    if (role.role === 'agent') return runAsAgent(o, given, role, apiKey, io);
    const settings = toRunSettings(o, apiKey);
    const progress = chooseProgress({ quiet: o.quiet === true, stream: io.stderr });
    const note = (line: string) => {
      if (o.quiet) return;
      if (progress.note) progress.note(line);
      else io.stderr.write(`${line}\n`);
    };
    const agents = role.role === 'coordinator' ? await coordinate(o, role, apiKey, io, note) : undefined;
    let out: RunOutcome;
    try {
      out = await runWithSignals(settings, progress, io, agents ? { agents: agents.hub } : {});
    } catch (e) {
      // What was measured is whole: its answer and paths first, then the error line (docs/method.md).
      if (e instanceof RunEndedWithError) printOutcome(e.outcome, o.quiet === true, io);
      throw e;
    } finally {
      await agents?.close();
    }
    printOutcome(out, o.quiet === true, io);
  });
}

// --resume: the stored run's settings win (the bench reads them again); flags that differ are named, once.
function resumed(o: Options<'run'>, given: ReadonlySet<OptionKey>, io: CliIo): Options<'run'> {
  if (o.resume === undefined) return o;
  const path = join(o.resume === '' ? o.out : o.resume, RESULT_FILE);
  if (!existsSync(path)) return o; // the runner says what to pass instead
  const { options, ignored } = mergeResume(readResult(path), o, given);
  if (ignored.length > 0 && o.quiet !== true) io.stderr.write(`warning: ${resumeWarning(ignored)}\n`);
  return options;
}

// Ctrl-C (or SIGTERM): abort in-flight requests, keep finished cells, mark the result interrupted. A second
// Ctrl-C exits at once (the last checkpoint is already on disk).
export async function runWithSignals(
  settings: RunInput,
  progress: ProgressSink,
  io: CliIo,
  deps: Pick<BenchRunDeps, 'agents'> = {},
  // What to do after Ctrl-C, where `run --resume` cannot work (the demo's sim stopped with it).
  interruptedHint: (dir: string) => string = (dir) =>
    `Continue it with \`${cliCommand('run', '--resume', dir)}\`.`,
): Promise<RunOutcome> {
  // loaded on use: other commands start faster
  const [{ BenchRun }, { writeReportsBeside }] = await Promise.all([
    import('../bench/run.js'),
    import('./write-reports.js'),
  ]);
  const run = new BenchRun(settings, {
    progress,
    writeReports: (dir, result) => writeReportsBeside(dir, result, finishedRunAnalysis(result)),
    ...deps,
  });
  let signals = 0;
  const onSignal = () => {
    signals += 1;
    if (signals > 1) process.exit(130);
    const effect = run.interrupt();
    const msg =
      'finishing' in effect
        ? `interrupting: the window of ${effect.finishing} has closed; finishing and saving that cell, then the result...`
        : 'interrupting: aborting the cell in progress (measured again on resume) and saving the result...';
    if (progress.note) progress.note(msg);
    else io.stderr.write(`\n${msg}\n`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let out: RunOutcome;
  try {
    out = await run.start();
  } catch (e) {
    progress.close?.(); // the error then starts on a line of its own, below the live view
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const levels = out.result.levels?.length ?? 0;
  const levelsText = levels ? `${levels} load level${levels === 1 ? '' : 's'}` : '';
  if (run.interrupted) {
    progress.close?.();
    const cells = out.counts.cells ? `${out.counts.done} of ${toMeasure(out.counts)} cells` : '';
    throw new BenchError(
      'INTERRUPTED',
      `run interrupted; ${[cells, levelsText].filter(Boolean).join(' and ') || 'nothing'} measured, kept in ${out.resultPath}.`,
      { hint: interruptedHint(out.dir) },
    );
  }
  const points = out.result.prefill.length;
  const cells = out.counts.cells
    ? `${doneCountsText(out.counts)}; ${points} prefill point${points === 1 ? '' : 's'}`
    : '';
  progress.finish(`done: ${[cells, levelsText].filter(Boolean).join('; ') || 'nothing measured'}`);
  return out;
}

export function printOutcome(out: RunOutcome, quiet: boolean, io: CliIo): void {
  // The answer first (docs/report.md "The answer"), then where the result and the full reports are.
  if (!quiet && (out.result.decode.length || out.result.levels?.length))
    io.stdout.write(
      renderAnswerText(finishedRunAnalysis(out.result), {
        width: terminalWidth(io.stdout),
        color: useColor(io.stdout, io.env),
      }) + '\n',
    );
  const width = terminalWidth(io.stdout);
  const lines = [`result: ${out.resultPath}`, ...out.reports.map((r) => `report: ${r}`)];
  // Prose wrapped to the terminal; the paths above stay whole to be copied.
  const busy = quiet ? undefined : machineBusy(out.result);
  if (busy) lines.push(...wrap(`note: ${busy.text}`, width, '  '));
  for (const w of quiet ? [] : out.result.warnings) lines.push(...wrap(`warning: ${w}`, width, '  '));
  io.stdout.write(lines.join('\n') + '\n');
}
