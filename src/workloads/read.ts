// The one module of workloads/ that reads files (test/layering.test.ts): a workload's length file or trace, and
// a --trace schedule. Everything else here is pure, so agents and workers rebuild requests from the data alone.
import { readFileSync } from 'node:fs';
import { fsError } from '../fs-errors.js';
import type { LoadedWorkload } from './requests.js';
import type { WorkloadSpec } from './spec.js';
import {
  parseScheduleText,
  parseTraceText,
  traceKindOf,
  type TraceLine,
  type TraceNeeds,
} from './trace-lines.js';

// Read whole and at once, before the run starts: nothing else is waiting (and a virtual-time run's clock, which
// moves when nothing is pending, is not left waiting on the file system).
async function readText(path: string): Promise<string> {
  try {
    return Promise.resolve(readFileSync(path, 'utf8'));
  } catch (e) {
    throw fsError('CONFIG_INVALID', `cannot read ${path}`, e);
  }
}

/** A length file or trace, checked line by line (trace-lines.ts). */
export async function readTraceFile(path: string, needs: TraceNeeds = {}): Promise<TraceLine[]> {
  return parseTraceText(await readText(path), path, needs);
}

/** A --trace schedule: the timestamps of its lines in time order, whatever else they hold. */
export async function readScheduleFile(path: string): Promise<number[]> {
  return parseScheduleText(await readText(path), path);
}

/** A --trace file's timestamps (time order) and what else it holds (src/config/traffic.ts TraceKind). */
export async function readSchedule(
  path: string,
): Promise<{ timestampsMs: number[]; kind: ReturnType<typeof traceKindOf> }> {
  const text = await readText(path);
  return { timestampsMs: parseScheduleText(text, path), kind: traceKindOf(text, path) };
}

/** The workload with its file read and checked (a bad line names its number). */
export async function loadWorkload(spec: WorkloadSpec): Promise<LoadedWorkload> {
  if (spec.kind === 'mooncake') return { spec, lines: await readTraceFile(spec.file, { block: spec.block }) };
  if (spec.kind === 'lengths' && 'file' in spec) return { spec, lines: await readTraceFile(spec.file) };
  return { spec };
}
