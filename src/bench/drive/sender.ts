import type { RequestRecord } from '../../client/types.js';
import { type Clock } from '../../clock.js';
import { firstTokenTimeoutMs } from '../../client/transport/timeouts.js';
import { RequestTag, type RequestLine } from '../../results/request-line.js';
import { buildRequestBody } from '../../target/request-body.js';
import type { TargetInfo } from '../../target/types.js';
import type { PromptSource, StreamFn } from './context.js';
import type { PlanPrompt } from './plan-prompts.js';
import type { Options } from '../../config/options.js';

// The request's tag (its requests.jsonl identity, src/results/request-line.ts) and how to send it.
export interface SendSpec extends RequestTag {
  promptTokens?: number; // the prompt's target when it differs from the context (a shortened retry)
  maxOutput: number; // the request's output cap (the engine's max_tokens field)
  signal?: AbortSignal;
  firstTokenTimeoutMs?: number;
  onFirstToken?: (tMs: number) => void;
}

export interface Sent {
  spec: SendSpec;
  requestId: string;
  record: RequestRecord;
  estTokens: number;
  repeat?: number; // which of a cell's --repeats windows sent it (1-based), when there are several
}

// Plain data (the settings' own fields), so worker threads send with the same transport and body.
export type SenderConfig = Pick<Options<'run'>, 'api' | 'ignoreEos'> &
  Partial<Pick<Options<'run'>, 'apiKey' | 'httpClient'>> & {
    baseUrl: string; // normalized (src/bench/settings.ts normalizeBaseUrl)
    sampling: Record<string, unknown>; // under the API's names (src/config/stored.ts samplingOf)
    idPrefix: string; // unique per process run, so resumed runs never reuse an X-Request-Id
    // Keep each chunk's text on decode requests, so an estimated token split can be pinned after the cell
    // (engines without continuous usage that have a tokenize endpoint).
    keepChunkTexts?: boolean;
  };

// Sends one streamed request for (context, slot) and keeps the record; never throws for request failures.
export class Sender {
  private seq = 0;
  constructor(
    private readonly cfg: SenderConfig,
    private readonly info: Pick<TargetInfo, 'engine' | 'model' | 'extensions'>,
    private readonly prompts: PromptSource,
    private readonly stream: StreamFn,
    private readonly clock: Clock,
  ) {}

  // What a worker thread needs to send the same requests (src/bench/drive/workers): plain data and the prompt source.
  workerParts(): {
    cfg: SenderConfig;
    info: Pick<TargetInfo, 'engine' | 'model' | 'extensions'>;
    prompts: PromptSource;
  } {
    const { engine, model, extensions } = this.info;
    return { cfg: this.cfg, info: { engine, model, extensions }, prompts: this.prompts };
  }

  // `planned`: a session's request (session-loop.ts) brings its prompt, and keeps the answer's text where the next
  // turn of its conversation needs it; any other request takes its slot's prompt from the prompt source.
  async send(spec: SendSpec, planned?: { prompt: PlanPrompt; keepText?: boolean }): Promise<Sent> {
    const { text, estTokens, messages }: PlanPrompt =
      planned?.prompt ?? (await this.prompts.prompt(spec.promptTokens ?? spec.contextTokens, spec.slot));
    const requestId = `${this.cfg.idPrefix}-${++this.seq}`;
    const body = buildRequestBody(this.info, {
      api: this.cfg.api,
      prompt: text,
      ...(messages ? { messages } : {}),
      maxOutput: spec.maxOutput,
      ignoreEos: this.cfg.ignoreEos,
      sampling: this.cfg.sampling,
    });
    const record = await this.stream({
      baseUrl: this.cfg.baseUrl,
      ...(this.cfg.apiKey ? { apiKey: this.cfg.apiKey } : {}),
      api: this.cfg.api,
      ...(this.cfg.httpClient ? { httpClient: this.cfg.httpClient } : {}),
      body,
      requestId,
      ...(spec.signal ? { signal: spec.signal } : {}),
      timeouts: { firstTokenMs: spec.firstTokenTimeoutMs ?? firstTokenTimeoutMs(spec.contextTokens) },
      now: () => this.clock.now(),
      ...(spec.onFirstToken ? { onFirstToken: spec.onFirstToken } : {}),
      ...(this.cfg.keepChunkTexts && (spec.phase === 'ramp' || spec.phase === 'window')
        ? { keepChunkTexts: true }
        : {}),
      ...(planned?.keepText ? { keepText: true } : {}),
    });
    return { spec, requestId, record, estTokens };
  }
}

// A record that crosses a thread or a machine: the spec's signal and callback stay behind, and so does an answer's
// text (its conversation's next turn has used it where it runs).
export function plainSent(s: Sent): Sent {
  const { signal: _signal, onFirstToken: _cb, ...spec } = s.spec;
  if (s.record.text === undefined) return { ...s, spec };
  const { text: _text, ...record } = s.record;
  return { ...s, spec, record };
}

export function toRequestLine(s: Sent): RequestLine {
  const r = s.record;
  const line: RequestLine = {
    ...tagOf(s.spec),
    requestId: s.requestId,
    sentAtMs: r.sentAtMs,
    endAtMs: r.endAtMs,
    chunks: r.chunks,
    outputTokens: r.outputTokens,
    tokenCountSource: r.tokenCountSource,
    status: r.ok ? 'ok' : 'error',
  };
  if (r.calledAtMs !== undefined) line.calledAtMs = r.calledAtMs;
  if (r.resent) {
    line.firstSentAtMs = r.resent.firstSentAtMs;
    line.resentAfter = r.resent.reason;
  }
  if (s.repeat !== undefined) line.repeat = s.repeat;
  if (r.firstTokenAtMs !== undefined) line.firstTokenAtMs = r.firstTokenAtMs;
  if (r.reasoningTokens !== undefined) line.reasoningTokens = r.reasoningTokens;
  if (r.promptTokens !== undefined) line.promptTokens = r.promptTokens;
  if (r.cachedTokens !== undefined) line.cachedTokens = r.cachedTokens;
  if (r.finishReason !== undefined) line.finishReason = r.finishReason;
  if (r.chunkAttribution !== undefined) line.chunkAttribution = r.chunkAttribution;
  if (r.unpinnedTokens) line.unpinnedTokens = r.unpinnedTokens;
  if (r.error) {
    line.errorKind = r.error.kind;
    if (r.error.status !== undefined) line.httpStatus = r.error.status;
    line.error = r.error.message;
  }
  return line;
}

const TAG_FIELDS = Object.keys(RequestTag.shape) as Array<keyof RequestTag>;

// The tag's fields of a spec, those present, in the line's order.
function tagOf(spec: SendSpec): RequestTag {
  const out: Record<string, unknown> = {};
  for (const k of TAG_FIELDS) if (spec[k] !== undefined) out[k] = spec[k];
  return out as RequestTag;
}
