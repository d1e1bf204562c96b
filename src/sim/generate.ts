import type { SimContext } from './context.js';
import { observeTruth } from './context.js';
import { errorFor, type ErrorKind, type ErrorInfo } from './flavors/errors.js';
import type { FaultDecision } from './faults.js';
import type { SimHttpRequest } from './http-types.js';
import { SSE_HEADERS, StreamSession, type GenRequest } from './stream-session.js';
import { blockHashesOf, countTokens, renderChat, tokenIds, type ChatMessage } from './tokenizer.js';
import type { TruthRecord } from './truth.js';
import type { Writer } from './writer.js';

// Fields TensorRT-LLM's pydantic models know; anything else is a 400 there (extra="forbid").
const TRTLLM_FIELDS = new Set(
  'model messages prompt max_tokens max_completion_tokens stream stream_options temperature top_p top_k min_p seed stop stop_token_ids min_tokens ignore_eos n best_of presence_penalty frequency_penalty repetition_penalty length_penalty logprobs top_logprobs logit_bias user tools tool_choice response_format echo suffix skip_special_tokens spaces_between_special_tokens add_special_tokens include_stop_str_in_output chat_template chat_template_kwargs add_generation_prompt reasoning_effort documents lora_request disaggregated_params'.split(
    ' ',
  ),
);

type Body = Record<string, unknown>;
type Api = 'chat' | 'completions';
/** One request in flight through the checks: where it came from, where the answer goes, its injected fault. */
interface Exchange {
  ctx: SimContext;
  req: SimHttpRequest;
  w: Writer;
  api: Api;
  fault: FaultDecision | undefined;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function refuseTruth(
  ctx: SimContext,
  req: SimHttpRequest,
  api: 'chat' | 'completions',
  status: number,
  fault?: string,
): void {
  const t: TruthRecord = {
    id: `rejected-${ctx.nextId++}`,
    api,
    stream: false,
    arrivalMs: req.arrivalMs,
    chunks: [],
    endMs: ctx.clock.now(),
    reason: 'error',
    promptTokens: 0,
    cachedTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    status,
  };
  const rid = req.headers['x-request-id'];
  if (rid) t.requestId = rid;
  if (fault) t.fault = fault;
  ctx.truth.add(t);
}

function sendError(
  ctx: SimContext,
  req: SimHttpRequest,
  w: Writer,
  api: 'chat' | 'completions',
  kind: ErrorKind,
  info: ErrorInfo,
  fault?: string,
): void {
  const e = errorFor(ctx.flavor.name, kind, info);
  w.head(e.status, e.body ? { 'content-type': 'application/json' } : {});
  w.end(e.body);
  refuseTruth(ctx, req, api, e.status, fault);
}

export function authorized(ctx: SimContext, req: SimHttpRequest): boolean {
  if (!ctx.apiKey) return true;
  const auth = req.headers['authorization'];
  if (auth === `Bearer ${ctx.apiKey}`) return true;
  return ctx.flavor.name === 'llamacpp' && req.headers['x-api-key'] === ctx.apiKey;
}

export function handleGenerate(
  ctx: SimContext,
  req: SimHttpRequest,
  w: Writer,
  api: 'chat' | 'completions',
): void {
  const fault = ctx.faults.decide();
  if (fault?.name === 'refuse') {
    w.destroy();
    refuseTruth(ctx, req, api, 0, 'refuse');
    return;
  }
  if (fault?.name === 'slow-headers') {
    ctx.clock.setTimer(() => generate(ctx, req, w, api, fault), fault.ms);
    return;
  }
  generate(ctx, req, w, api, fault);
}

/** A request the checks let through: what the session and the engine need of it. */
interface Accepted {
  body: Body;
  model: string;
  stream: boolean;
  so: Body | undefined;
  text: string;
  promptTokens: number;
  explicit: number | undefined;
}

function generate(
  ctx: SimContext,
  req: SimHttpRequest,
  w: Writer,
  api: Api,
  fault: FaultDecision | undefined,
): void {
  if (w.closed) return;
  const x: Exchange = { ctx, req, w, api, fault };
  const a = acceptRequest(x);
  if (!a) return;
  if (refuseForLength(x, a) || refuseForLoad(x)) return;
  startSession(x, a);
}

/** Runs the checks an engine makes before it schedules anything; answers and returns undefined on a refusal. */
function acceptRequest(x: Exchange): Accepted | undefined {
  const { ctx, req, w, api, fault } = x;
  const f = ctx.flavor;
  const p = ctx.profile;
  const authApplies = f.name !== 'ollama' && f.name !== 'trtllm';
  if ((authApplies && !authorized(ctx, req)) || fault?.name === '401') {
    return void sendError(ctx, req, w, api, 'auth', {}, fault?.name);
  }
  const body = parseBody(x);
  if (!body || refuseUnknownFields(x, body)) return undefined;
  let model = typeof body.model === 'string' ? body.model : p.servedModelName;
  if (f.name === 'tgi' && model === 'tgi') model = p.servedModelName; // TGI answers "tgi" with its model id
  if ((f.validatesModel && model !== p.servedModelName) || fault?.name === '404') {
    return void sendError(ctx, req, w, api, 'model', { model }, fault?.name);
  }
  const stream = body.stream === true;
  const so =
    body.stream_options && typeof body.stream_options === 'object'
      ? (body.stream_options as Body)
      : undefined;
  if (so && !stream && f.streamOptionsNeedsStream) {
    return void sendError(ctx, req, w, api, 'bad-request', {
      message: 'Stream options can only be defined when `stream=True`.',
    });
  }
  if (refuseInjected(x)) return undefined;
  const prompt = readPrompt(x, body);
  if (!prompt) return undefined;
  return { body, model, stream, so, ...prompt, explicit: explicitMaxTokens(ctx, body) };
}

function parseBody(x: Exchange): Body | undefined {
  const { ctx, req, w, api } = x;
  try {
    const parsed: unknown = JSON.parse(req.body);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Body;
  } catch {
    return void sendError(ctx, req, w, api, 'bad-request', { message: 'Request body is not valid JSON.' });
  }
}

/** TensorRT-LLM answers a field it does not know with pydantic's own 400; true when it did. */
function refuseUnknownFields(x: Exchange, body: Body): boolean {
  const { ctx, req, w, api } = x;
  if (!ctx.flavor.rejectUnknownFields) return false;
  const unknown = Object.keys(body).find((k) => !TRTLLM_FIELDS.has(k));
  if (!unknown) return false;
  w.head(400, { 'content-type': 'application/json' });
  w.end(
    JSON.stringify({
      error: `1 validation error for ${api === 'chat' ? 'ChatCompletionRequest' : 'CompletionRequest'}\n${unknown}\n  Extra inputs are not permitted [type=extra_forbidden]`,
    }),
  );
  refuseTruth(ctx, req, api, 400);
  return true;
}

/** An injected 429/503/500 fault; true when it answered. */
function refuseInjected(x: Exchange): boolean {
  const { ctx, req, w, api, fault } = x;
  if (!fault || (fault.name !== '429' && fault.name !== '503' && fault.name !== '500')) return false;
  const kind: ErrorKind = fault.name === '500' ? 'server' : fault.name === '429' ? 'overload' : 'unavailable';
  const e = errorFor(ctx.flavor.name, kind);
  const status = fault.name === '429' ? 429 : fault.name === '503' ? 503 : 500;
  w.head(status, e.body ? { 'content-type': 'application/json' } : {});
  w.end(e.body);
  refuseTruth(ctx, req, api, status, fault.name);
  return true;
}

function readPrompt(x: Exchange, body: Body): { text: string; promptTokens: number } | undefined {
  const { ctx, req, w, api } = x;
  if (api === 'chat') {
    const messages = Array.isArray(body.messages) ? (body.messages as ChatMessage[]) : undefined;
    if (!messages || messages.length === 0)
      return void sendError(ctx, req, w, api, 'bad-request', { message: '`messages` is required.' });
    const text = renderChat(messages, ctx.profile.chatTemplate);
    return { text, promptTokens: countTokens(text) };
  }
  const pr = body.prompt;
  const text = typeof pr === 'string' ? pr : Array.isArray(pr) && typeof pr[0] === 'string' ? pr[0] : '';
  if (!text) return void sendError(ctx, req, w, api, 'bad-request', { message: '`prompt` is required.' });
  return { text, promptTokens: countTokens(text) };
}

/** The output cap the client asked for, by the flavor's own field names; negative means none. */
function explicitMaxTokens(ctx: SimContext, body: Body): number | undefined {
  const f = ctx.flavor;
  const explicit =
    (f.name === 'llamacpp' ? num(body.n_predict) : undefined) ??
    (f.maxCompletionTokens
      ? (num(body.max_completion_tokens) ?? num(body.max_tokens))
      : num(body.max_tokens));
  return explicit !== undefined && explicit < 0 ? undefined : explicit;
}

/**
 * A prompt (or prompt + cap) over the context: refused, or, on Ollama, cut to fit (which updates
 * `a.promptTokens`). True when it answered.
 */
function refuseForLength(x: Exchange, a: Accepted): boolean {
  const { ctx, req, w, api, fault } = x;
  const f = ctx.flavor;
  const L = ctx.engine.sched.limits.contextLimit; // llama.cpp: the slot's context, not the model's
  const { promptTokens, explicit } = a;
  const tooLong = promptTokens >= L || fault?.name === 'too-long';
  if (f.truncatesLongPrompts && promptTokens >= L && fault?.name !== 'too-long') {
    a.promptTokens = L - 1; // Ollama drops old context to fit num_ctx instead of refusing
    return false;
  }
  const overCap =
    explicit !== undefined && promptTokens + explicit > L && f.name !== 'llamacpp' && f.name !== 'ollama';
  if (!tooLong && !overCap) return false;
  const info: ErrorInfo = {
    promptTokens: Math.max(promptTokens, fault?.name === 'too-long' ? L + 1 : 0),
    maxModelLen: L,
  };
  if (!tooLong && explicit !== undefined) info.maxTokens = explicit;
  if (f.tooLongInStream && a.stream) {
    const e = errorFor(f.name, 'too-long', info);
    w.head(200, SSE_HEADERS);
    const msg = (JSON.parse(e.body) as { error: string }).error;
    w.end(`data: ${JSON.stringify({ error: { message: msg, http_status_code: 422 } })}\n\ndata: [DONE]\n\n`);
    refuseTruth(ctx, req, api, 200, fault?.name);
    return true;
  }
  sendError(ctx, req, w, api, 'too-long', info, fault?.name);
  return true;
}

/** TGI's concurrency cap and Ollama's queue cap; true when it answered. */
function refuseForLoad(x: Exchange): boolean {
  const { ctx, req, w, api } = x;
  const f = ctx.flavor;
  const p = ctx.profile;
  const full =
    (f.name === 'tgi' && ctx.sessions.size >= p.maxConcurrentRequests) ||
    (f.name === 'ollama' && ctx.engine.sched.waiting.length >= p.maxQueue);
  if (full) sendError(ctx, req, w, api, 'overload', {});
  return full;
}

function startSession(x: Exchange, a: Accepted): void {
  const { ctx, req, w, api, fault } = x;
  const f = ctx.flavor;
  const { body, promptTokens, text } = a;
  const room = ctx.engine.sched.limits.contextLimit - promptTokens;
  const defaultMax =
    api === 'completions' && f.completionsDefaultMaxTokens !== null ? f.completionsDefaultMaxTokens : room;
  const maxTokens = Math.max(1, Math.min(a.explicit ?? defaultMax, room));
  const ids = tokenIds(text).subarray(0, promptTokens); // Ollama cuts an over-long prompt to fit
  const id = `${api === 'chat' ? 'chatcmpl' : 'cmpl'}-sim${(ctx.nextId++).toString(16).padStart(8, '0')}`;
  // The API server's delay runs from the request's arrival (not from when this process got to it), or from the
  // end of an injected header delay.
  const receivedMs = fault?.name === 'slow-headers' ? ctx.clock.now() : req.arrivalMs;
  const arrivalMs = ctx.engine.sched.api.arrivalMs(receivedMs, promptTokens);
  const truth = openTruth(id, req, api, a.stream, promptTokens, fault);
  truth.engineArrivalMs = arrivalMs;
  const session = new StreamSession(genRequest(ctx, id, api, a), f, w, truth, ctx.truth, ctx.clock, fault);
  session.abortEngine = () => ctx.engine.abort(id);
  session.onDone = () => {
    ctx.sessions.delete(session);
    observeTruth(ctx, truth);
  };
  ctx.sessions.add(session);
  session.start();
  ctx.engine.submit(
    {
      id,
      arrivalMs,
      promptTokens,
      blockHashes: blockHashesOf(ids, ctx.engine.sched.kv.blockSize),
      tokenIds: ids,
      maxTokens,
      minTokens: f.minTokens ? num(body.min_tokens) : undefined,
      ignoreEos: f.ignoreEos ? body.ignore_eos === true : false,
    },
    session,
  );
}

function genRequest(ctx: SimContext, id: string, api: Api, a: Accepted): GenRequest {
  const f = ctx.flavor;
  const p = ctx.profile;
  const so = a.so;
  const includeUsage = so
    ? typeof so.include_usage === 'boolean'
      ? so.include_usage
      : f.includeUsageDefault
    : false;
  return {
    id,
    api,
    stream: a.stream,
    model: a.model,
    createdS: Math.floor(ctx.clock.now() / 1000),
    promptTokens: a.promptTokens,
    includeUsage,
    continuousUsage: f.continuousUsage && includeUsage && so?.continuous_usage_stats === true,
    cachedTokensInUsage:
      f.cachedTokensInUsage === 'always' ||
      (f.cachedTokensInUsage === 'flag' && p.promptTokensDetails) ||
      (f.cachedTokensInUsage === 'non-stream' && !a.stream),
    reasoningParser: p.reasoningTokens > 0,
  };
}

function openTruth(
  id: string,
  req: SimHttpRequest,
  api: Api,
  stream: boolean,
  promptTokens: number,
  fault: FaultDecision | undefined,
): TruthRecord {
  const truth: TruthRecord = {
    id,
    api,
    stream,
    arrivalMs: req.arrivalMs,
    chunks: [],
    endMs: 0,
    reason: 'abort',
    promptTokens,
    cachedTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
  };
  const rid = req.headers['x-request-id'];
  if (rid) truth.requestId = rid;
  if (fault) truth.fault = fault.name;
  return truth;
}
