import { streamRequest } from '../client/stream.js';
import { realClock } from '../clock.js';
import { fitPrefillModel, priorPrefillModel, type PrefillModel } from '../plan/prefill-model.js';
import type { TargetInfo } from '../target/types.js';
import { measurePrefill } from './prefill.js';
import { createPromptSource } from './prompt-source.js';
import { Sender } from './drive/sender.js';

// Two lengths far enough apart to show how per-token time grows, short enough to cost seconds on a slow host.
const PROBE_LENGTHS = [1024, 4096];

// `plan --base-url`: the server's own prefill speed from two short cold prompts (max_tokens 1, fresh text that
// no run shares), fitted to a*L + b*L^2 over the engine's prior. Falls back to the prior if a probe fails.
export async function probePrefillModel(o: {
  baseUrl: string;
  apiKey?: string;
  info: TargetInfo;
  api: 'chat' | 'completions';
  maxModelLen?: number;
}): Promise<{ model: PrefillModel; measured: boolean }> {
  const prior = priorPrefillModel(o.info.engine.name);
  const runId = `plan-probe-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const prompts = await createPromptSource({
    runId,
    seed: Math.floor(Math.random() * 2 ** 31),
    baseUrl: o.baseUrl,
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
    info: o.info,
    api: o.api,
  });
  const sender = new Sender(
    {
      baseUrl: o.baseUrl,
      ...(o.apiKey ? { apiKey: o.apiKey } : {}),
      api: o.api,
      ignoreEos: false,
      sampling: {},
      idPrefix: runId,
    },
    o.info,
    prompts,
    streamRequest,
    realClock,
  );
  const samples = [];
  const limit = (o.maxModelLen ?? Infinity) - 256;
  for (const tokens of PROBE_LENGTHS.filter((l) => l <= limit)) {
    const m = await measurePrefill(sender, tokens, false, 1, new AbortController().signal).catch(
      () => undefined,
    );
    const point = m && 'point' in m ? m.point : undefined;
    const r = point?.status === 'Valid' ? point.repeats[0] : undefined;
    if (r && r.ttftMs > 0) samples.push({ tokens: r.promptTokens || tokens, seconds: r.ttftMs / 1000 });
  }
  return { model: fitPrefillModel(samples, prior), measured: samples.length > 0 };
}
