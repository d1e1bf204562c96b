import { configSection } from '../config/stored.js';
import type { Plan } from '../plan/plan.js';
import { resultHeader } from '../results/header.js';
import type { RunResult } from '../results/schema.js';
import { REQUEST_LOG_FILE } from '../results/io.js';
import { redactSecrets } from '../secrets.js';
import { redactCommandLine } from '../target/redact.js';
import type { TargetInfo } from '../target/types.js';
import { prefillRepeatsOf, type RunSettings } from './settings.js';
import { trafficConfig } from '../config/traffic.js';
import { runConcurrency, type RunTraffic } from './traffic.js';

export function resultSkeleton(o: {
  runId: string;
  settings: RunSettings;
  baseUrl: string;
  info: TargetInfo;
  plan: Plan;
  maxModelLen: number | undefined;
  kvCapacityTokens: number | undefined;
  startedAt: string;
  traffic?: RunTraffic; // absent: the fixed workload's closed loop
}): RunResult {
  const s = o.settings;
  const warnings = [...(o.info.warnings ?? [])];
  if (o.kvCapacityTokens === undefined)
    warnings.push(
      'KV capacity unknown: no cell was skipped as Over capacity; statuses come from what the server did',
    );
  const result: RunResult = {
    ...resultHeader({ runId: o.runId, status: 'running', startedAt: o.startedAt }),
    target: {
      baseUrl: o.baseUrl,
      model: o.info.model,
      api: s.api,
      metricsAvailable: o.info.metricsAvailable,
      ...(s.revision ? { revision: s.revision } : {}),
      ...(o.maxModelLen !== undefined ? { maxModelLen: o.maxModelLen } : {}),
      ...(o.kvCapacityTokens !== undefined
        ? {
            kvCapacityTokens: o.kvCapacityTokens,
            kvCapacitySource:
              s.kvCapacity !== undefined ? '--kv-capacity' : (o.info.kvCapacitySource ?? 'probe'),
            kvCapacityBound: s.kvCapacity !== undefined ? 'exact' : (o.info.kvCapacityBound ?? 'exact'),
          }
        : {}),
      ...(o.info.seats ? { seats: o.info.seats, seatsSource: o.info.seatsSource ?? 'probe' } : {}),
      ...(o.info.kvLayout ? { kvLayout: o.info.kvLayout } : {}),
      ...(o.info.tokenizeAvailable !== undefined ? { tokenizeAvailable: o.info.tokenizeAvailable } : {}),
      ...(o.info.tokenizeMethod ? { tokenizeMethod: o.info.tokenizeMethod } : {}),
      ...(o.info.reasoningField ? { reasoningField: o.info.reasoningField } : {}),
    },
    engine: o.info.engine,
    hardware: o.info.hardware,
    config: {
      ...configSection({
        ...s,
        contexts: o.plan.contexts,
        prefillContexts: o.plan.prefillContexts,
        concurrency: o.traffic ? runConcurrency(o.traffic, o.plan, s.concurrency) : o.plan.concurrency,
        prefillRepeats: prefillRepeatsOf(s),
      }),
      ...(o.traffic ? trafficConfig(o.traffic) : {}),
    },
    prefill: [],
    decode: [],
    warnings,
    requestLog: REQUEST_LOG_FILE,
  };
  if (s.title) result.title = s.title;
  const launch = o.info.launchCommand ?? s.launchCommand;
  // Probe already redacts what it found or was given; redact again in case a probe stand-in did not.
  if (launch) result.launchCommand = redactSecrets(redactCommandLine(launch));
  return result;
}
