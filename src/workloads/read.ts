// The one module of workloads/ that reads files (test/layering.test.ts): a workload's length file or trace, and
// a --trace schedule. Everything else here is pure, so agents and workers rebuild requests from the data alone.
import { readFile } from 'node:fs/promises';
import { fsError } from '../fs-errors.js';
import type { LoadedWorkload } from './requests.js';
import type { WorkloadSpec } from './spec.js';
import { parseTraceText, type TraceLine, type TraceNeeds } from './trace-lines.js';

export async function readTraceFile(path: string, needs: TraceNeeds = {}): Promise<TraceLine[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw fsError('CONFIG_INVALID', `cannot read ${path}`, e);
  }
  return parseTraceText(text, path, needs);
}

/** The workload with its file read and checked (a bad line names its number). */
export async function loadWorkload(spec: WorkloadSpec): Promise<LoadedWorkload> {
  if (spec.kind === 'mooncake') return { spec, lines: await readTraceFile(spec.file, { block: spec.block }) };
  if (spec.kind === 'lengths' && 'file' in spec) return { spec, lines: await readTraceFile(spec.file) };
  return { spec };
}
