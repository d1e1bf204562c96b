import { layoutWords } from '../engines/index.js';
import { kvBoundNote } from '../format/index.js';
import { redactSecrets } from '../secrets.js';
import { serverRoot } from './probe.js';
import type { TargetInfo } from './types.js';

// What `probe --json` prints: TargetInfo without functions, with the server root (never credentials).
export function probeJson(info: TargetInfo, baseUrl: string): Record<string, unknown> {
  const { tokenize: _t, ...rest } = info;
  return JSON.parse(
    redactSecrets(JSON.stringify({ baseUrl: serverRoot(baseUrl) + '/v1', ...rest })),
  ) as Record<string, unknown>;
}

export function formatProbe(info: TargetInfo, baseUrl: string): string {
  const e = info.engine;
  const hw = info.hardware;
  const rows: Array<[string, string]> = [
    ['Server', serverRoot(baseUrl) + '/v1'],
    ['Engine', `${e.name}${e.detectedBy ? ` (detected by ${e.detectedBy})` : ''}`],
    ['Version', e.version ?? 'unknown (pass --engine-version)'],
  ];
  if (e.commit) rows.push(['Commit', e.commit]);
  if (e.build) rows.push(['Build', e.build]);
  if (e.quantization) rows.push(['Quantization', e.quantization]);
  if (e.backend) rows.push(['Backend', e.backend]);
  rows.push([
    'Model',
    info.model +
      (info.models.length > 1
        ? ` (of ${info.models.length}: ${info.models.slice(0, 5).join(', ')}${info.models.length > 5 ? ', ...' : ''})`
        : ''),
  ]);
  rows.push([
    'Max model length',
    info.maxModelLen
      ? `${fmt(info.maxModelLen)} tokens (${info.maxModelLenSource ?? 'discovered'})`
      : 'unknown (pass --max-model-len)',
  ]);
  rows.push([
    'KV capacity',
    info.kvCapacityTokens
      ? `${fmt(info.kvCapacityTokens)} tokens (${info.kvCapacitySource ?? 'discovered'})${kvBoundNote(info.kvCapacityBound)}`
      : 'unknown (pass --kv-capacity)',
  ]);
  if (info.seats)
    rows.push(['Seats', `${fmt(info.seats)} requests at once (${info.seatsSource ?? 'discovered'})`]);
  const layout = layoutWords(info.engine.name, info.kvLayout);
  if (layout) rows.push(['KV layout', layout]);
  rows.push([
    'Metrics',
    info.metricsAvailable
      ? `yes (${info.metricsPath ?? '/metrics'}: ${metricList(info)})`
      : 'no (queueing is judged from client timings)',
  ]);
  rows.push([
    'Tokenize endpoint',
    info.tokenizeAvailable
      ? `yes${info.tokenizeMethod ? `: ${info.tokenizeMethod}` : ''}`
      : 'no (prompts are sized by calibration probes)',
  ]);
  rows.push(['Reasoning field', info.reasoningField ?? 'none (reasoning text, if any, arrives in content)']);
  rows.push(['Extensions', extensionList(info)]);
  if (info.cachedTokensSource) rows.push(['Cached tokens', info.cachedTokensSource]);
  rows.push(['Hardware', hardwareText(hw)]);
  if (hw.os) rows.push(['OS', hw.os]);
  rows.push(['Launch command', info.launchCommand ?? 'unknown (pass --launch-command)']);
  for (const w of info.warnings ?? []) rows.push(['Warning', w]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return redactSecrets(rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n'));
}

function hardwareText(hw: TargetInfo['hardware']): string {
  if (hw.gpuName)
    return `${hw.gpuCount ?? 1} × ${hw.gpuName}${hw.gpuMemoryGb ? ` ${hw.gpuMemoryGb} GB` : ''}${hw.gpuMemoryGbTotal ? ` (${hw.gpuMemoryGbTotal} GB total)` : ''}${hw.gpuDriver ? `, driver ${hw.gpuDriver}` : ''} [${hw.source ?? 'unknown'}]`;
  if (hw.source === 'os') {
    const parts = [hw.cpu ?? 'unknown CPU'];
    if (hw.cpuCores) parts.push(`${hw.cpuCores} logical cores`);
    if (hw.systemMemoryGb) parts.push(`${hw.systemMemoryGb} GB memory`);
    return `CPU: ${parts.join(', ')} (no GPU found on this machine) [os]`;
  }
  if (hw.source === 'sim') return hw.type ?? 'Simulated (no real GPU)';
  return 'unknown (server not local or no nvidia-smi/rocm-smi; pass --gpu-name, --gpu-count, --gpu-memory-gb)';
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

const METRIC_WORDS: Record<string, string> = {
  running: 'running',
  waiting: 'waiting',
  kvUsage: 'KV usage',
  prefixCacheHits: 'prefix cache',
  specDrafts: 'spec decoding',
  specAcceptedTokens: 'spec decoding',
  specAcceptLength: 'spec decoding',
};

function metricList(info: TargetInfo): string {
  const words = new Set(
    (info.metricsPresent ?? []).map((k) => METRIC_WORDS[k]).filter((w): w is string => !!w),
  );
  return [...words].join(', ') || 'none of running/waiting/KV usage';
}

function extensionList(info: TargetInfo): string {
  const x = info.extensions;
  const names: string[] = [];
  if (x.ignoreEos) names.push('ignore_eos');
  if (x.minTokens) names.push('min_tokens');
  if (x.streamOptions) names.push('stream_options.include_usage');
  if (x.continuousUsage) names.push('continuous_usage_stats');
  if (x.maxCompletionTokens) names.push('max_completion_tokens');
  return names.join(', ') || 'none';
}
