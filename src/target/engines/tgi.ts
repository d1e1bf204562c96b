import { okJson, posInt, promAt, str, tokenizeTimeoutMs } from '../discovery-util.js';
import { parsePrometheus, sumOf } from '../prometheus.js';
import { tgi as facts } from '../../engines/tgi.js';
import type { Discovery, ProbeContext } from '../types.js';
import { adapterOf } from './adapter.js';

// Hugging Face TGI (router v3): its facts are src/engines/tgi.ts.
const TGI_WANTED = new Set([
  'tgi_batch_current_size',
  'tgi_queue_size',
  'tgi_batch_current_max_tokens',
  'tgi_batch_max_total_tokens',
]);
export const tgi = adapterOf(facts, {
  async fingerprint(ctx, listing) {
    const info = okJson(await ctx.get('/info'));
    if (info && 'model_id' in info && ('max_total_tokens' in info || 'router' in info)) return 'GET /info';
    return listing.shape === 'bare-array' ? 'GET /v1/models (bare array)' : undefined;
  },
  async discover(ctx) {
    const d: Discovery = { metricsAvailable: false };
    const info = okJson(await ctx.get('/info')) ?? {};
    d.version = str(info.version);
    d.commit = str(info.sha);
    const label = str(info.docker_label);
    if (label && label !== 'null') d.build = label;
    // max_total_tokens is a per-request limit (input + output), not the KV budget.
    const maxTotal = posInt(info.max_total_tokens);
    if (maxTotal)
      Object.assign(d, { maxModelLen: maxTotal, maxModelLenSource: 'GET /info max_total_tokens' });
    const prom = await promAt(ctx, '/metrics');
    if (prom && [...prom.keys()].some((k) => k.startsWith('tgi_'))) {
      d.metricsAvailable = true;
      d.metricsPath = '/metrics';
      const budget = posInt(prom.get('tgi_batch_max_total_tokens')?.[0]?.value);
      if (budget)
        Object.assign(d, { kvCapacityTokens: budget, kvCapacitySource: 'tgi_batch_max_total_tokens' });
    }
    const maxConc = posInt(info.max_concurrent_requests);
    if (maxConc) {
      (d.warnings ??= []).push(
        `TGI answers 429 beyond ${maxConc} concurrent requests (max_concurrent_requests).`,
      );
    }
    if ((await tgiTokenize(ctx, 'hello')) !== undefined) {
      d.tokenize = (text) => tgiTokenize(ctx, text);
      d.tokenizeMethod = 'POST /tokenize (content only)';
    }
    return d;
  },
  readSample(body) {
    const prom = parsePrometheus(body, TGI_WANTED);
    if (prom.size === 0) return undefined;
    const s: Record<string, number> = {};
    const running = sumOf(prom, ['tgi_batch_current_size']);
    const waiting = sumOf(prom, ['tgi_queue_size']);
    const used = sumOf(prom, ['tgi_batch_current_max_tokens']);
    const budget = sumOf(prom, ['tgi_batch_max_total_tokens']);
    if (running !== null) s.running = running;
    if (waiting !== null) s.waiting = waiting;
    // The batch's reserved tokens over the budget: TGI's closest thing to KV usage.
    if (used !== null && budget) s.kvUsage = used / budget;
    return s;
  },
});

async function tgiTokenize(ctx: ProbeContext, text: string): Promise<number | undefined> {
  const r = await ctx.post('/tokenize', { inputs: text }, tokenizeTimeoutMs(ctx, text.length));
  return r.ok && Array.isArray(r.body) ? r.body.length : undefined;
}
