import type { SimContext } from '../context.js';
import { jsonResponse, type SimHttpRequest, type SimHttpResponse } from '../http-types.js';
import { countChatTokens, countTokens, renderChat, type ChatMessage } from '../tokenizer.js';
import { prometheusText, trtllmIterStats } from './metrics.js';

type Route = (ctx: SimContext, req: SimHttpRequest) => SimHttpResponse;
export type RouteTable = Record<string, Route>; // "GET /path"

const empty = (status = 200): SimHttpResponse => ({ status, body: '' });
const kvTokens = (ctx: SimContext) => ctx.engine.sched.kv.numBlocks * ctx.profile.blockSize;

function parseBody(req: SimHttpRequest): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(req.body || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

// Token ids are synthetic (the sim has no vocabulary); the count is what matters and is exact.
const fakeIds = (n: number) => Array.from({ length: n }, (_, i) => 1000 + (i % 30000));

// A chat tokenize counts the rendered conversation (template tokens included), as the server's prompt count does.
function countOf(ctx: SimContext, body: Record<string, unknown>, field: string): number | undefined {
  if (Array.isArray(body.messages))
    return countChatTokens(body.messages as ChatMessage[], ctx.profile.chatTemplate);
  const v = body[field];
  if (typeof v === 'string') return countTokens(v);
  if (Array.isArray(v) && typeof v[0] === 'string') return countTokens(v[0]);
  return undefined;
}

const metricsRoute: Route = (ctx) => {
  if (!ctx.profile.metrics) return { status: 404, body: 'Not Found', contentType: 'text/plain' };
  const text = prometheusText(ctx);
  return text === null
    ? { status: 404, body: '404 page not found', contentType: 'text/plain' }
    : { status: 200, body: text, contentType: 'text/plain; version=0.0.4; charset=utf-8' };
};

// One /v1/models shape for every flavor that lists models the OpenAI way; flavors differ only in extra fields.
const modelList = (ctx: SimContext, extra: Record<string, unknown> = {}): SimHttpResponse =>
  jsonResponse(200, {
    object: 'list',
    data: [
      {
        id: ctx.profile.servedModelName,
        object: 'model',
        created: Math.floor(ctx.startedMs / 1000),
        owned_by: ctx.flavor.ownedBy,
        ...extra,
      },
    ],
  });

const modelsOpenAi = (ctx: SimContext, withLen: boolean): SimHttpResponse =>
  modelList(ctx, {
    root: ctx.profile.servedModelName,
    parent: null,
    ...(withLen ? { max_model_len: ctx.profile.maxModelLen } : {}),
  });

function vllmRoutes(): RouteTable {
  return {
    'GET /version': (ctx) => jsonResponse(200, { version: ctx.profile.engine.version }),
    'GET /health': () => empty(),
    'GET /ping': () => empty(),
    'GET /load': (ctx) => jsonResponse(200, { server_load: ctx.sessions.size }),
    'GET /v1/models': (ctx) => modelsOpenAi(ctx, true),
    'GET /metrics': metricsRoute,
    'POST /tokenize': (ctx, req) => {
      const body = parseBody(req);
      const n = countOf(ctx, body, 'prompt');
      if (n === undefined)
        return jsonResponse(400, {
          error: { message: 'prompt or messages required', type: 'BadRequestError', param: null, code: 400 },
        });
      return jsonResponse(200, {
        count: n,
        max_model_len: ctx.profile.maxModelLen,
        tokens: fakeIds(n),
        token_strs: null,
      });
    },
    'POST /detokenize': (_ctx, req) => {
      const t = parseBody(req).tokens;
      return jsonResponse(200, { prompt: Array.isArray(t) ? t.map(() => ' tok').join('') : '' });
    },
  };
}

function sglangRoutes(): RouteTable {
  const info: Route = (ctx) =>
    jsonResponse(200, {
      model_path: ctx.profile.servedModelName,
      served_model_name: ctx.profile.servedModelName,
      context_length: ctx.profile.maxModelLen,
      max_running_requests: ctx.profile.maxNumSeqs,
      chunked_prefill_size: ctx.profile.maxBatchedTokens,
      mem_fraction_static: 0.88,
      disable_radix_cache: !ctx.profile.prefixCaching,
      enable_metrics: ctx.profile.metrics,
      max_total_num_tokens: kvTokens(ctx),
      max_req_input_len: ctx.profile.maxModelLen - 1,
      internal_states: [{ avg_spec_accept_length: ctx.profile.speculative?.meanTokens ?? null }],
      version: ctx.profile.engine.version,
    });
  const modelInfo: Route = (ctx) =>
    jsonResponse(200, {
      model_path: ctx.profile.servedModelName,
      tokenizer_path: ctx.profile.servedModelName,
      is_generation: true,
    });
  const tokenize: Route = (ctx, req) => {
    const n = countOf(ctx, parseBody(req), 'prompt') ?? 0;
    return jsonResponse(200, { tokens: fakeIds(n), count: n, max_model_len: 131072 });
  };
  const health: Route = () => empty();
  return {
    'GET /get_server_info': info,
    'GET /server_info': info,
    'GET /get_model_info': modelInfo,
    'GET /model_info': modelInfo,
    'GET /v1/models': (ctx) => modelsOpenAi(ctx, true),
    'GET /health': health,
    'GET /health_generate': health,
    'GET /ping': health,
    'GET /metrics': metricsRoute,
    'POST /v1/tokenize': tokenize,
    'POST /tokenize': tokenize,
    'POST /v1/detokenize': (_ctx, req) => {
      const t = parseBody(req).tokens;
      return jsonResponse(200, { text: Array.isArray(t) ? t.map(() => ' tok').join('') : '' });
    },
  };
}

function llamacppRoutes(): RouteTable {
  const health: Route = () => jsonResponse(200, { status: 'ok' });
  const kv = (ctx: SimContext) => ctx.engine.sched.limits.llamacpp!;
  const models: Route = (ctx) => modelList(ctx, { meta: { n_ctx_train: kv(ctx).nCtxTrain, n_params: 0 } });
  return {
    'GET /health': health,
    'GET /v1/health': health,
    'GET /v1/models': models,
    'GET /models': models,
    'GET /props': (ctx) =>
      jsonResponse(200, {
        // Per slot only: neither the pool nor unified-vs-split shows anywhere in the API.
        default_generation_settings: {
          n_ctx: kv(ctx).nCtxSlot,
          params: { temperature: 0.8, top_k: 40, top_p: 0.95, min_p: 0.05 },
        },
        total_slots: kv(ctx).slots,
        model_path: ctx.profile.servedModelName,
        chat_template: '{{ messages }}',
        modalities: { vision: false, audio: false },
        build_info: ctx.profile.engine.version,
        is_sleeping: false,
      }),
    'GET /slots': (ctx) => {
      const running = ctx.engine.sched.running.length;
      return jsonResponse(
        200,
        Array.from({ length: ctx.profile.maxNumSeqs }, (_, id) => ({
          id,
          n_ctx: kv(ctx).nCtxSlot,
          is_processing: id < running,
        })),
      );
    },
    'GET /metrics': metricsRoute,
    // The sim's BOS is part of the template's start, so add_special adds nothing: apply-template then tokenize
    // gives the prompt count of a chat request exactly.
    'POST /tokenize': (_ctx, req) => {
      const body = parseBody(req);
      const n = typeof body.content === 'string' ? countTokens(body.content) : 0;
      const ids = fakeIds(n);
      return jsonResponse(200, {
        tokens: body.with_pieces === true ? ids.map((id) => ({ id, piece: ' tok' })) : ids,
      });
    },
    'POST /apply-template': (ctx, req) => {
      const body = parseBody(req);
      if (!Array.isArray(body.messages))
        return jsonResponse(400, {
          error: { code: 400, message: "'messages' is required", type: 'invalid_request_error' },
        });
      return jsonResponse(200, {
        prompt: renderChat(body.messages as ChatMessage[], ctx.profile.chatTemplate),
      });
    },
    'POST /detokenize': (_ctx, req) => {
      const t = parseBody(req).tokens;
      return jsonResponse(200, { content: Array.isArray(t) ? t.map(() => ' tok').join('') : '' });
    },
  };
}

function tgiRoutes(): RouteTable {
  return {
    'GET /info': (ctx) =>
      jsonResponse(200, {
        model_id: ctx.profile.servedModelName,
        model_sha: null,
        model_pipeline_tag: 'text-generation',
        max_concurrent_requests: ctx.profile.maxConcurrentRequests,
        max_best_of: 2,
        max_stop_sequences: 4,
        max_input_tokens: ctx.profile.maxModelLen - 1,
        max_total_tokens: ctx.profile.maxModelLen,
        max_client_batch_size: 4,
        router: 'text-generation-router',
        version: ctx.profile.engine.version,
        sha: ctx.profile.engine.commit ?? null,
        docker_label: null,
      }),
    'GET /v1/models': (ctx) =>
      jsonResponse(200, [
        {
          id: ctx.profile.servedModelName,
          object: 'model',
          created: 0,
          owned_by: ctx.profile.servedModelName,
        },
      ]),
    'GET /health': () => empty(),
    'GET /ping': () => empty(),
    'GET /metrics': metricsRoute,
    'POST /tokenize': (_ctx, req) => {
      const body = parseBody(req);
      const n = typeof body.inputs === 'string' ? countTokens(body.inputs) : 0;
      return jsonResponse(
        200,
        fakeIds(n).map((id, i) => ({ id, text: ' tok', start: i * 4, stop: i * 4 + 4 })),
      );
    },
    'POST /chat_tokenize': (ctx, req) => {
      const body = parseBody(req);
      const n = countOf(ctx, body, 'inputs') ?? 0;
      const messages = Array.isArray(body.messages) ? (body.messages as ChatMessage[]) : [];
      return jsonResponse(200, {
        tokenize_response: fakeIds(n).map((id, i) => ({ id, text: ' tok', start: i * 4, stop: i * 4 + 4 })),
        templated_text: renderChat(messages, ctx.profile.chatTemplate),
      });
    },
  };
}

function ollamaRoutes(): RouteTable {
  return {
    'GET /': () => ({ status: 200, body: 'Ollama is running', contentType: 'text/plain; charset=utf-8' }),
    'GET /api/version': (ctx) => jsonResponse(200, { version: ctx.profile.engine.version }),
    'GET /v1/models': (ctx) => modelList(ctx),
    'GET /api/ps': (ctx) =>
      jsonResponse(200, {
        models: [
          {
            name: ctx.profile.servedModelName,
            model: ctx.profile.servedModelName,
            size: 0,
            size_vram: 0,
            context_length: ctx.profile.maxModelLen,
          },
        ],
      }),
    'POST /api/show': (ctx) =>
      jsonResponse(200, {
        model_info: { 'general.architecture': 'sim', 'sim.context_length': ctx.profile.maxModelLen },
        details: { family: 'sim' },
      }),
  };
}

function trtllmRoutes(): RouteTable {
  return {
    'GET /version': (ctx) => jsonResponse(200, { version: ctx.profile.engine.version }),
    'GET /health': () => empty(),
    'GET /health_generate': () => empty(),
    'GET /v1/models': (ctx) => modelList(ctx),
    'GET /server_info': (ctx) =>
      jsonResponse(200, { version: ctx.profile.engine.version, max_num_seqs: ctx.profile.maxNumSeqs }),
    'GET /metrics': (ctx) =>
      ctx.profile.metrics
        ? jsonResponse(200, trtllmIterStats(ctx))
        : jsonResponse(404, { detail: 'Not Found' }),
    'GET /prometheus/metrics': metricsRoute,
    'POST /_internal/tokenize': (ctx, req) => {
      const n = countOf(ctx, parseBody(req), 'prompt') ?? 0;
      return jsonResponse(200, { count: n, tokens: fakeIds(n) });
    },
  };
}

export const ROUTES = {
  vllm: vllmRoutes(),
  sglang: sglangRoutes(),
  llamacpp: llamacppRoutes(),
  tgi: tgiRoutes(),
  ollama: ollamaRoutes(),
  trtllm: trtllmRoutes(),
} as const;

// Which paths need the API key when one is configured (docs/engines.md "Detection order").
export function needsKey(flavor: keyof typeof ROUTES, path: string, generation: boolean): boolean {
  switch (flavor) {
    case 'vllm':
      return /^\/(v1|v2|inference|cohere)(\/|$)/.test(path);
    case 'sglang':
      return !path.startsWith('/health') && path !== '/metrics';
    case 'llamacpp':
      return !['/health', '/v1/health', '/models', '/v1/models'].includes(path);
    case 'tgi':
      return generation || path === '/tokenize';
    default:
      return false;
  }
}
