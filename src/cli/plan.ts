import type { CliIo } from './io.js';
import type { Command } from 'commander';
import { normalizeBaseUrl, prefillRepeatsOf } from '../bench/settings.js';
import { withOptions } from '../config/resolve.js';
import { buildPlan, type Plan } from '../plan/plan.js';
import { contextLabel, fmtEta, kvBoundNote } from '../format/index.js';
import { countCells, plannedCountsText } from '../plan/counts.js';
import { estimateDuration, type Estimate } from '../plan/estimate.js';
import { resolveApiKey } from './api-key.js';
import type { KvBound, TargetInfo } from '../target/types.js';
import type { PrefillModel } from '../plan/prefill-model.js';

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('plan')
    .description(
      'print the cells, their statuses (Over capacity) and an estimated duration, without running anything',
    );
  const resolve = withOptions(cmd, 'plan');
  cmd.action(async (flags: Record<string, unknown>) => {
    const o = resolve(flags).options;
    let maxModelLen = o.maxModelLen;
    let kvCapacity = o.kvCapacity;
    let source = 'flags';
    let kv: KvNote = o.kvCapacity !== undefined ? { source: '--kv-capacity', bound: 'exact' } : {};
    let prefill: Awaited<ReturnType<typeof onlinePrefill>> | undefined;
    // Online: what the flags do not say, the server does; its prefill speed comes from two short prompts.
    if (o.baseUrl) {
      const apiKey = resolveApiKey({ apiKey: o.apiKey, apiKeyFile: o.apiKeyFile, env: io.env });
      const { probeTarget } = await import('../target/probe.js');
      const info = await probeTarget({
        baseUrl: normalizeBaseUrl(o.baseUrl),
        ...(apiKey ? { apiKey } : {}),
        ...(o.model ? { model: o.model } : {}),
        ...(o.engine ? { engine: o.engine } : {}),
      });
      maxModelLen ??= info.maxModelLen;
      if (kvCapacity === undefined && info.kvCapacityTokens !== undefined)
        kv = { source: info.kvCapacitySource, bound: info.kvCapacityBound ?? 'exact' };
      kvCapacity ??= info.kvCapacityTokens;
      source = `${info.engine.name} at ${o.baseUrl}`;
      prefill = await onlinePrefill(o.baseUrl, apiKey, info, o.api, maxModelLen);
    }
    const plan = buildPlan({
      ...(maxModelLen !== undefined ? { maxModelLen } : {}),
      ...(kvCapacity !== undefined ? { kvCapacityTokens: kvCapacity } : {}),
      ...(kv.bound ? { kvCapacityBound: kv.bound } : {}),
      ...(o.verifyCapacity ? { verifyCapacity: true } : {}),
      maxOutput: o.maxOutput,
      ...(o.contexts ? { contexts: o.contexts } : {}),
      ...(o.prefillContexts ? { prefillContexts: o.prefillContexts } : {}),
      ...(o.concurrency ? { concurrency: o.concurrency } : {}),
    });
    if (o.forTwin) {
      const { forTwinText } = await import('../twin/for-twin.js');
      const baseUrl = o.baseUrl ? { baseUrl: o.baseUrl } : {};
      io.stdout.write(
        forTwinText(plan, { duration: o.duration, prefillRepeats: o.prefillRepeats, ...baseUrl }),
      );
      return;
    }
    const est = estimateDuration(plan, {
      duration: o.duration,
      prefillRepeats: prefillRepeatsOf(o),
      repeats: o.repeats,
      ...prefill,
    });
    io.stdout.write(
      o.json
        ? JSON.stringify(
            {
              ...plan,
              kvCapacitySource: kv.source,
              kvCapacityBound: kv.bound,
              source,
              counts: countCells(plan),
              estimate: est,
            },
            null,
            2,
          ) + '\n'
        : planTable(plan, est, source, kv, o.repeats),
    );
  });
}

async function onlinePrefill(
  baseUrl: string,
  apiKey: string | undefined,
  info: TargetInfo,
  api: 'chat' | 'completions',
  maxModelLen: number | undefined,
): Promise<{ engine: string; prefill: PrefillModel }> {
  const { probePrefillModel } = await import('../bench/prefill-probe.js');
  const p = await probePrefillModel({
    baseUrl: normalizeBaseUrl(baseUrl),
    ...(apiKey ? { apiKey } : {}),
    info,
    api,
    ...(maxModelLen !== undefined ? { maxModelLen } : {}),
  });
  return { engine: info.engine.name, prefill: p.model };
}

const SHORT: Record<string, string> = { run: 'run', 'Over capacity': 'over', 'Too long': 'long' };

const planMark = (cell: Plan['cells'][number]): string =>
  cell.capacityCheck ? 'check' : SHORT[cell.status]!;

// Where the KV capacity came from and how sure it is (issue 16).
interface KvNote {
  source?: string | undefined;
  bound?: KvBound | undefined;
}

// What the table's marks mean, for the marks it shows.
function legend(plan: Plan): string[] {
  const marks = new Set(plan.cells.map(planMark));
  const words = [
    ...(marks.has('over') ? ['over = Over capacity: N x (context + max output) > KV capacity, skipped'] : []),
    ...(marks.has('check') ? ['check = over the capacity figure, measured to see what the server does'] : []),
    ...(marks.has('long') ? ['long = the context does not fit the server, skipped'] : []),
  ];
  return words.length ? [words.join('; ')] : [];
}

export function planTable(plan: Plan, est: Estimate, source: string, kv: KvNote = {}, repeats = 1): string {
  const w = 6;
  const lines = [
    `plan (${source}): max model length ${plan.maxModelLen ?? 'unknown'}, KV capacity ${plan.kvCapacityTokens ?? 'unknown'}${plan.kvCapacityTokens !== undefined && kv.source ? ` (${kv.source}${kvBoundNote(kv.bound)})` : ''}, max output ${plan.maxOutput}`,
    `prefill at ${plan.prefill.map((p) => contextLabel(p.contextTokens) + (p.status === 'run' ? '' : ' (too long)')).join(', ')}`,
    '',
    ['context'.padEnd(8), ...plan.concurrency.map((n) => String(n).padStart(w))].join(' '),
    ...plan.contexts.map((c) =>
      [
        contextLabel(c).padEnd(8),
        ...plan.concurrency.map((n) =>
          planMark(plan.cells.find((x) => x.contextTokens === c && x.concurrency === n)!).padStart(w),
        ),
      ].join(' '),
    ),
    '',
    ...legend(plan),
    `${plannedCountsText(countCells(plan))}${repeats > 1 ? `; each measured ${repeats} times` : ''}; estimated ${fmtEta(est.totalS)} (${fmtEta(est.decodeS)} decode, ${fmtEta(est.prefillS)} cold prefill)`,
  ];
  return lines.join('\n') + '\n';
}
