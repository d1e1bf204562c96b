import { obj, okJson, posInt, promAt, str, tokenizeTimeoutMs, userMessage } from '../discovery-util.js';
import { llamacpp as facts } from '../../engines/llamacpp.js';
import type { Discovery, ModelEntry, ProbeContext } from '../types.js';
import { adapterOf } from './adapter.js';

// llama.cpp `llama-server`: its facts are src/engines/llamacpp.ts.
export const llamacpp = adapterOf(facts, {
  async fingerprint(ctx) {
    const props = okJson(await ctx.get('/props'));
    return props && ('build_info' in props || 'default_generation_settings' in props)
      ? 'GET /props'
      : undefined;
  },
  async discover(ctx, model) {
    const d: Discovery = { metricsAvailable: false };
    const props = okJson(await ctx.get('/props')) ?? {};
    const build = str(props.build_info);
    const m = build ? /^(b\d+)(?:-([0-9a-f]{6,40}))?/.exec(build) : null;
    d.version = m?.[1] ?? build;
    d.commit = m?.[2];
    const slotCtx = posInt(obj(props.default_generation_settings)?.n_ctx) ?? (await firstSlotCtx(ctx));
    const stated = posInt(props.total_slots);
    const slots = stated ?? 1;
    if (stated) Object.assign(d, { seats: stated, seatsSource: 'GET /props total_slots' });
    if (slotCtx) {
      d.maxModelLen = slotCtx;
      d.maxModelLenSource = 'GET /props default_generation_settings.n_ctx (per slot)';
      Object.assign(d, kvFromSlots(slotCtx, slots, props, model));
    } else if (Object.keys(props).length === 0) {
      (d.warnings ??= []).push(
        'llama.cpp /props did not answer (it needs the API key); pass --max-model-len.',
      );
    }
    const prom = await promAt(ctx, '/metrics');
    if (prom && [...prom.keys()].some((k) => k.startsWith('llamacpp:'))) {
      d.metricsAvailable = true;
      d.metricsPath = '/metrics';
    } else {
      (d.warnings ??= []).push(
        'llama.cpp /metrics is off (start llama-server with --metrics to see its queue).',
      );
    }
    if ((await lcTokenize(ctx, 'hello')) !== undefined) {
      // Builds without /apply-template count the content alone; the prompt factory adds the template's tokens.
      const rendered = (await lcChatCount(ctx, 'hello')) !== undefined;
      d.tokenize = (text, api) =>
        api === 'chat' && rendered ? lcChatCount(ctx, text) : lcTokenize(ctx, text);
      d.tokenizeCoversTemplate = rendered;
      d.tokenizeMethod = rendered
        ? 'POST /apply-template, then /tokenize (chat template included)'
        : 'POST /tokenize (content only; no /apply-template)';
    }
    return d;
  },
});

// What /props tells of the pool. A slot holds min(its KV, n_ctx_train): unified KV (the default since late 2025 when
// -np is not given) lets each slot address the whole pool, split KV (-np N) gives each slot n_ctx/N. So a slot below
// the training context shows its KV exactly (unified: the pool; split: one N-th of it), while a slot at the training
// context may sit on a larger pool (a llama-server with -c 65536 and 4 unified slots capped at 32,768). A build that
// reports kv_unified is believed; without it a slot below n_ctx_train is read as split (N x slot, inferred: unified
// with a small -c would hold only one slot's worth), at n_ctx_train as one pool of at least a slot. The launch
// command (probe.ts) replaces all of this with an exact figure when it is readable.
export function kvFromSlots(
  slotCtx: number,
  slots: number,
  props: Record<string, unknown>,
  model: ModelEntry,
): Pick<Discovery, 'kvCapacityTokens' | 'kvCapacitySource' | 'kvCapacityBound' | 'kvLayout'> {
  const flag = props.kv_unified ?? obj(props.default_generation_settings)?.kv_unified;
  const layout =
    typeof flag === 'boolean' ? { kvLayout: flag ? ('unified' as const) : ('split' as const) } : {};
  const train = posInt(obj(model.raw.meta)?.n_ctx_train);
  const capped = train === undefined || slotCtx >= train; // the slot may hide a larger pool
  const bound = capped ? 'lower-bound' : 'exact';
  if (slots <= 1)
    return {
      kvCapacityTokens: slotCtx,
      kvCapacitySource: 'GET /props n_ctx (1 slot)',
      kvCapacityBound: bound,
    };
  if (flag === true || (typeof flag !== 'boolean' && capped)) {
    return {
      kvCapacityTokens: slotCtx,
      kvCapacitySource: `GET /props n_ctx (unified KV shared by ${slots} slots${capped ? ', at least this' : ''})`,
      kvCapacityBound: bound,
      ...layout,
    };
  }
  return {
    kvCapacityTokens: slotCtx * slots,
    kvCapacitySource: `GET /props n_ctx × total_slots (${slots} slots)`,
    kvCapacityBound: flag === false ? bound : 'inferred',
    ...layout,
  };
}

async function firstSlotCtx(ctx: ProbeContext): Promise<number | undefined> {
  const r = await ctx.get('/slots');
  const slots = r.ok && Array.isArray(r.body) ? (r.body as unknown[]) : [];
  return posInt(obj(slots[0])?.n_ctx);
}

// add_special so the count includes BOS, parse_special so template markers count as the special tokens they
// are: both as the server tokenizes a prompt.
async function lcTokenize(ctx: ProbeContext, text: string): Promise<number | undefined> {
  const body = { content: text, add_special: true, parse_special: true };
  const j = okJson(await ctx.post('/tokenize', body, tokenizeTimeoutMs(ctx, text.length)));
  return Array.isArray(j?.tokens) ? j.tokens.length : undefined;
}

// The chat request's whole prompt: the server renders the template (/apply-template), then tokenizes the result.
async function lcChatCount(ctx: ProbeContext, text: string): Promise<number | undefined> {
  const body = { messages: userMessage(text) };
  const j = okJson(await ctx.post('/apply-template', body, tokenizeTimeoutMs(ctx, text.length)));
  return typeof j?.prompt === 'string' ? lcTokenize(ctx, j.prompt) : undefined;
}
