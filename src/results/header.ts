import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { RESULT_SCHEMA_ID, RESULT_SCHEMA_VERSION, type RunResult } from './schema.js';

export type ResultHeader = Pick<
  RunResult,
  'schema' | 'version' | 'runId' | 'tool' | 'status' | 'startedAt' | 'decodeTest' | 'prefillMode'
>;

// The fields every result opens with, whoever writes it: a run, a prediction, a twin's simulated run, an import.
export function resultHeader(o: {
  runId: string;
  status: RunResult['status'];
  startedAt: string;
  tool?: RunResult['tool']; // an import keeps the tool that wrote the report
  decodeTest?: string;
  prefillMode?: string;
}): ResultHeader {
  return {
    schema: RESULT_SCHEMA_ID,
    version: RESULT_SCHEMA_VERSION,
    runId: o.runId,
    tool: o.tool ?? { name: TOOL_NAME, version: TOOL_VERSION },
    status: o.status,
    startedAt: o.startedAt,
    decodeTest: o.decodeTest ?? 'Fixed duration',
    prefillMode: o.prefillMode ?? 'Measured during decode warm-up',
  };
}
