import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BenchError } from '../../errors.js';
import { fsError } from '../../fs-errors.js';
import { buildPlan, raisedCapacity, refuseAllTooLong, type Plan, type PlanInput } from '../../plan/plan.js';
import { RESULT_FILE } from '../../results/io.js';
import { readResult } from '../../results/read.js';
import type { RunResult } from '../../results/schema.js';
import { probeFacts, type probeTarget } from '../../target/probe.js';
import type { TargetInfo } from '../../target/types.js';
import { mergeResume } from '../../config/stored.js';
import { resultSkeleton } from '../result-state.js';
import { newRunId, normalizeBaseUrl, resumeDirOf, type RunSettings } from '../settings.js';
import { withoutLocalHardwareForSim } from '../sim-hardware.js';
import { Checkpoint } from './checkpoint.js';
import { levelRows, measuresCells, readTraffic, type RunTraffic } from '../traffic.js';
import { cliCommand } from '../../invocation.js';
import { kvLayoutOf } from '../../engines/index.js';
import { runFoldersIn } from '../../results/read.js';

export interface OpenedRun {
  settings: RunSettings; // a resumed run's stored settings win
  resumed: boolean;
  baseUrl: string;
  info: TargetInfo;
  plan: Plan; // re-planned when a capacity check proves the server holds more (raisedCapacity)
  planInput: PlanInput;
  runId: string;
  checkpoint: Checkpoint;
  traffic: RunTraffic; // the workload and load model, their files read (src/bench/traffic.ts)
}

// Resume, probe, plan, folder: everything before the first request. Refuses (BenchError) before it writes.
export async function openRun(
  given: RunSettings,
  probe: typeof probeTarget,
  startedAt: () => string,
): Promise<OpenedRun> {
  const resumeDir = resumeDirOf(given);
  const previous = resumeDir !== undefined ? readPrevious(resumeDir) : undefined;
  const s = previous ? mergeResume(previous, given).options : given;
  if (!s.baseUrl)
    throw new BenchError('USAGE', 'no server given.', { hint: 'Pass --base-url http://HOST:PORT/v1.' });
  const baseUrl = normalizeBaseUrl(s.baseUrl);
  const traffic = await readTraffic(s); // a bad combination or file is refused before the server is asked
  const info = await probeFor(s, s.baseUrl, probe); // as given: the probe strips credentials and says so
  if (previous && previous.target.model !== info.model)
    throw new BenchError(
      'RESUME_MISMATCH',
      `the server now serves ${info.model}, the run measured ${previous.target.model}.`,
      { hint: 'Resume against the same server and model, or start a new run.' },
    );
  const { plan, planInput, maxModelLen, kvCapacityTokens } = planRun(
    s,
    info,
    previous,
    given.kvCapacity,
    traffic,
  );
  refuseAllTooLong(plan, planInput.prefillContexts !== undefined); // before the folder and any request
  const runId = previous?.runId ?? s.runId ?? newRunId();
  const dir = resumeDir ?? join(s.out, runId);
  if (!previous) makeFolder(dir);
  const result: RunResult = previous
    ? { ...previous, status: 'running' }
    : resultSkeleton({
        runId,
        settings: s,
        baseUrl,
        info,
        plan,
        maxModelLen,
        kvCapacityTokens,
        startedAt: startedAt(),
        traffic,
      });
  const checkpoint = new Checkpoint(dir, result, plan);
  return {
    settings: s,
    resumed: previous !== undefined,
    baseUrl,
    info,
    plan,
    planInput,
    runId,
    checkpoint,
    traffic,
  };
}

// What a run measures (and `plan --resume` shows): the settings over what the server reports. A resumed run keeps
// the capacity bound it found, and its capacity checks that ran whole still raise the capacity.
export function planRun(
  s: Pick<RunSettings, 'maxModelLen' | 'kvCapacity' | 'verifyCapacity' | 'maxOutput'> &
    Pick<RunSettings, 'contexts' | 'prefillContexts' | 'concurrency' | 'duration' | 'warmup'>,
  info: Pick<TargetInfo, 'maxModelLen' | 'kvCapacityTokens' | 'kvCapacityBound' | 'kvLayout'> & {
    engine?: Pick<TargetInfo['engine'], 'name'>; // absent offline (plan --resume): the stored run's
  },
  previous: RunResult | undefined,
  capacityFlag: number | undefined,
  traffic: RunTraffic,
): { plan: Plan; planInput: PlanInput; maxModelLen?: number; kvCapacityTokens?: number } {
  const maxModelLen = s.maxModelLen ?? info.maxModelLen;
  const kvCapacityTokens = s.kvCapacity ?? info.kvCapacityTokens;
  // A resumed run keeps the bound it found; a capacity given by flag is exact.
  const kvCapacityBound = previous
    ? (previous.target.kvCapacityBound ?? 'exact')
    : capacityFlag !== undefined
      ? 'exact'
      : (info.kvCapacityBound ?? 'exact');
  // Split llama.cpp slots and Ollama's contexts never run short of KV: the plan runs what the server would queue.
  const engine = info.engine?.name ?? previous?.engine.name ?? 'generic';
  const kvLayout = kvLayoutOf(engine, info.kvLayout ?? previous?.target.kvLayout);
  const planInput: PlanInput = {
    ...(maxModelLen !== undefined ? { maxModelLen } : {}),
    ...(kvCapacityTokens !== undefined ? { kvCapacityTokens, kvCapacityBound } : {}),
    ...(kvLayout ? { kvLayout } : {}),
    ...(s.verifyCapacity ? { verifyCapacity: true } : {}),
    maxOutput: s.maxOutput,
    // A workload other than fixed has one row, the workload: no contexts; its closed loop is load levels.
    ...(traffic.workload.kind !== 'fixed' ? { contexts: [] } : s.contexts ? { contexts: s.contexts } : {}),
    ...(s.prefillContexts ? { prefillContexts: s.prefillContexts } : {}),
    ...(s.concurrency?.length ? { concurrency: s.concurrency } : {}),
    ...(measuresCells(traffic) ? {} : { closedLoop: false }),
  };
  const proven = Math.max(
    0,
    ...(previous?.decode ?? []).map((c) =>
      c.capacityCheck && !c.capacityCheck.held ? c.capacityCheck.needTokens : 0,
    ),
  );
  const built = raisedCapacity(buildPlan(planInput), proven, planInput);
  const levels = levelRows(traffic, built, s);
  const plan = levels.length ? { ...built, levels } : built;
  return {
    plan,
    planInput,
    ...(maxModelLen !== undefined ? { maxModelLen } : {}),
    ...(kvCapacityTokens !== undefined ? { kvCapacityTokens } : {}),
  };
}

// The stored result fixes runId, seed, lists and target, so the prompts and cells are the same.
export function readPrevious(dir: string): RunResult {
  const path = join(dir, RESULT_FILE);
  // A folder that is not there is worded as report and import word it (fsError), not as an empty one.
  try {
    statSync(dir);
  } catch (e) {
    throw fsError('USAGE', `nothing to resume in ${dir}`, e);
  }
  if (!existsSync(path))
    throw new BenchError('USAGE', `nothing to resume in ${dir}: it holds no ${RESULT_FILE}.`, {
      hint: resumeHint(dir),
    });
  const previous = readResult(path);
  if (!resumable(previous))
    throw new BenchError('USAGE', `the run in ${dir} is already complete; nothing to resume.`);
  return previous;
}

// --resume continues a run that did not complete (interrupted, or killed while running); a complete one is done.
const resumable = (r: Pick<RunResult, 'status'>): boolean => r.status !== 'complete';

// The run folders inside `dir` that --resume takes, oldest first; a result that cannot be read is left out.
function resumableRunsIn(dir: string): { runs: string[]; complete: number } {
  const runs: string[] = [];
  let complete = 0;
  for (const run of runFoldersIn(dir)) {
    let r: RunResult;
    try {
      r = readResult(join(run, RESULT_FILE));
    } catch {
      continue;
    }
    if (resumable(r)) runs.push(run);
    else complete += 1;
  }
  return { runs, complete };
}

async function probeFor(s: RunSettings, baseUrl: string, probe: typeof probeTarget): Promise<TargetInfo> {
  const { hardware, engineFlags } = probeFacts(s);
  const probed = await probe({
    baseUrl,
    ...(s.apiKey ? { apiKey: s.apiKey } : {}),
    ...(s.model ? { model: s.model } : {}),
    ...(s.engine ? { engine: s.engine } : {}),
    hardware: s.hardware ?? hardware,
    ...(s.launchCommand ? { launchCommand: s.launchCommand } : {}),
    engineFlags,
  });
  return withoutLocalHardwareForSim(probed, s.hardware ?? hardware, s.backend);
}

function makeFolder(dir: string): void {
  if (existsSync(join(dir, RESULT_FILE)))
    throw new BenchError('USAGE', `${dir} already holds a result.`, {
      hint: `Continue it with \`${cliCommand('run', '--resume', dir)}\`, or pick another --run-id.`,
    });
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw fsError('WRITE_FAILED', `cannot create ${dir}`, e);
  }
}

// The run folders inside a folder given to --resume (its --out folder, say): the command that resumes each.
// Only runs that did not complete: a complete one pasted was refused as "already complete".
function resumeHint(dir: string): string {
  const { runs, complete } = resumableRunsIn(dir);
  if (runs.length === 0)
    return complete > 0
      ? `Its ${complete === 1 ? 'run is' : `${complete} runs are all`} complete: none to resume. Start a new run without --resume.`
      : 'Pass the run folder (<out>/<runId>, the one that holds result.json) to --resume.';
  const shown = runs.slice(-3).map((r) => `\`${cliCommand('run', '--resume', r)}\``);
  const what = `${runs.length === 1 ? 'an interrupted run' : `${runs.length} interrupted runs`}${complete ? ` (and ${complete} complete)` : ''}`;
  return `It holds ${what}; resume with ${shown.join(' or ')}${runs.length > 3 ? ' (the newest three)' : ''}.`;
}
