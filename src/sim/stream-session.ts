import type { Clock } from '../clock.js';
import { flavorFacts } from '../engines/index.js';
import type { SeqSink } from './engine-loop.js';
import { streamErrorEvent } from './flavors/errors.js';
import type { FlavorSpec } from './flavors/flavor.js';
import type { FaultDecision } from './faults.js';
import type { FinishReason } from './scheduler.js';
import { outputText } from './tokenizer.js';
import type { TruthLog, TruthRecord } from './truth.js';
import type { Writer } from './writer.js';

export interface GenRequest {
  id: string;
  api: 'chat' | 'completions';
  stream: boolean;
  model: string;
  createdS: number;
  promptTokens: number;
  includeUsage: boolean;
  continuousUsage: boolean;
  cachedTokensInUsage: boolean;
  reasoningParser: boolean; // the server splits reasoning out (the profile has reasoning tokens)
}

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
};

// One generation request from admission to its last byte: turns engine emissions into the flavor's events,
// writes each emission in one flush and records its send time as ground truth.
export class StreamSession implements SeqSink {
  private output = 0;
  private reasoning = 0;
  private roleSent = false;
  private finished = false;
  private steps = 0;
  private readonly head: string; // precomputed chunk JSON up to the choices array
  private stallUntil = 0;
  private stallBuffer: string[] = [];
  private stallTokens: number[] = [];
  private stallFinish: FinishReason | undefined;
  private faultDone = false;
  lastWriteMs: number;
  abortEngine: () => void = () => {};
  onDone: () => void = () => {};

  constructor(
    readonly req: GenRequest,
    readonly flavor: FlavorSpec,
    readonly writer: Writer,
    readonly truth: TruthRecord,
    private readonly log: TruthLog,
    private readonly clock: Clock,
    readonly fault: FaultDecision | undefined,
  ) {
    const id = flavor.emptyChunkId ? '' : req.id;
    const object = req.api === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    this.head = `{"id":${JSON.stringify(id)},"object":"${object}","created":${req.createdS},"model":${JSON.stringify(req.model)},`;
    this.lastWriteMs = clock.now();
    writer.onClose(() => this.clientGone());
  }

  start(): void {
    if (this.req.stream && !this.flavor.headersAtAdmission) this.writer.head(200, SSE_HEADERS);
  }

  admitted(atMs: number, cachedTokens: number): void {
    if (this.truth.admittedMs !== undefined) return; // re-admission after a preemption
    this.truth.admittedMs = atMs;
    this.truth.cachedTokens = cachedTokens;
    if (!this.req.stream || !this.flavor.headersAtAdmission) return;
    // llama.cpp: headers and the role chunk go out when a slot takes the request, before prefill ends.
    this.writer.head(200, SSE_HEADERS);
    if (this.req.api === 'chat') {
      this.roleSent = true;
      this.send(this.event(this.choice('{"role":"assistant","content":null}', null), 0), 0);
    }
  }

  tokens(tokens: number, reasoningTokens: number, finish: FinishReason | undefined): void {
    if (this.finished || this.writer.closed) return;
    this.steps++;
    const f = this.fault;
    if (this.req.stream && f && !this.faultDone && this.output + tokens >= f.atTokens) {
      this.faultDone = true;
      if (f.name === 'bad-json')
        this.send(`data: ${this.head}"choices":[{"index":0,"delta":{"content":"\n\n`, 0);
      if (f.name === 'stall') {
        this.stallUntil = this.clock.now() + f.ms;
        this.truth.stall = { atMs: this.clock.now(), ms: f.ms };
      }
    }
    const contentTokens = tokens - reasoningTokens;
    if (!this.req.stream) {
      this.output += tokens;
      this.reasoning += reasoningTokens;
      if (finish) this.finishNonStream(finish);
      return;
    }
    let out = '';
    const counts: number[] = [];
    const isChat = this.req.api === 'chat';
    if (isChat && !this.roleSent && (this.flavor.role === 'empty' || this.flavor.role === 'omit')) {
      const delta =
        this.flavor.role === 'empty' ? '{"role":"assistant","content":""}' : '{"role":"assistant"}';
      out += this.event(this.choice(delta, null), 0, this.flavor.roleChunkSuffix);
      this.roleSent = true;
    }
    const lastFinish = finish && !this.flavor.finishSeparate ? finish : null;
    const parts: Array<['reasoning' | 'content', number]> = [];
    if (reasoningTokens > 0) parts.push(['reasoning', reasoningTokens]);
    if (contentTokens > 0) parts.push(['content', contentTokens]);
    for (let pi = 0; pi < parts.length; pi++) {
      const [kind, n] = parts[pi]!;
      const pieces = this.flavor.perTokenEvents ? new Array<number>(n).fill(1) : [n];
      for (let k = 0; k < pieces.length; k++) {
        const m = pieces[k]!;
        const start = kind === 'reasoning' ? this.reasoning : this.output - this.reasoning;
        const text = outputText(kind, start, m);
        this.output += m;
        if (kind === 'reasoning') this.reasoning += m;
        const isLast = pi === parts.length - 1 && k === pieces.length - 1;
        const fin = isLast ? lastFinish : null;
        out += this.event(
          isChat ? this.choice(this.delta(kind, text), fin) : this.choice(null, fin, text),
          this.output,
        );
        counts.push(m);
      }
    }
    if (finish) {
      // llama.cpp puts `timings` on the last chunk of the stream: the usage chunk when there is one.
      const timings = this.flavor.timings ? `,"timings":${this.timings()}` : '';
      if (this.flavor.finishSeparate || tokens === 0)
        out += this.event(
          this.choice(isChat ? '{}' : null, finish, ''),
          this.output,
          '\n\n',
          this.req.includeUsage ? '' : timings,
        );
      if (this.req.includeUsage)
        out += `data: ${this.head}"choices":[],"usage":${this.usage(this.output, true)}${timings}}\n\n`;
    }
    const f2 = this.fault;
    const faultEnds = f2 && this.faultDone && (f2.name === 'cut' || f2.name === 'error-event');
    if (finish && !faultEnds) out += 'data: [DONE]\n\n';
    this.send(out, counts, finish && !faultEnds ? finish : undefined);
    if (faultEnds) this.injectEnd(f2.name);
  }

  // The engine dropped the request (llama.cpp's unified pool is full): llama.cpp fails every running request
  // with one error event and closes the stream without [DONE]; before headers it is a plain HTTP 500.
  failed(): void {
    if (this.finished || this.writer.closed) return;
    this.finished = true;
    const message = flavorFacts(this.flavor.name).errors.poolFull ?? 'Server error';
    const body = streamErrorEvent(this.flavor.name, message);
    if (this.req.stream && this.writer.headSent) {
      this.flushNow(`data: ${body}\n\n${this.flavor.doneAfterError ? 'data: [DONE]\n\n' : ''}`);
      this.writer.end();
    } else {
      this.writer.head(500, { 'content-type': 'application/json' });
      this.writer.end(body);
      this.truth.status = 500;
    }
    this.truth.error = message;
    this.close('error');
  }

  private injectEnd(name: string): void {
    this.finished = true;
    this.abortEngine();
    if (name === 'error-event' && this.flavor.name === 'ollama') {
      // Ollama's OpenAI layer drops the native error: the stream just ends, no finish chunk, no [DONE].
      this.writer.end();
    } else if (name === 'error-event' && this.flavor.name !== 'trtllm') {
      let out = `data: ${streamErrorEvent(this.flavor.name, 'simulated engine error (fault error-event)')}\n\n`;
      if (this.flavor.doneAfterError) out += 'data: [DONE]\n\n';
      this.flushNow(out);
      this.writer.end();
    } else {
      // cut, and TensorRT-LLM's re-raised exception: the connection just closes.
      this.flushStall();
      this.writer.destroy();
    }
    this.close('error', name);
  }

  private send(data: string, counts: number | number[], finish?: FinishReason): void {
    const list = typeof counts === 'number' ? (counts > 0 ? [counts] : []) : counts;
    if (this.stallUntil > this.clock.now()) {
      if (this.stallBuffer.length === 0)
        this.clock.setTimer(() => this.flushStall(), this.stallUntil - this.clock.now());
      this.stallBuffer.push(data);
      this.stallTokens.push(...list);
      if (finish) {
        this.finished = true;
        this.stallFinish = finish;
      }
      return;
    }
    const t = finish ? this.writer.end(data) : this.writer.write(data);
    this.lastWriteMs = t;
    for (const c of list) this.recordChunk(t, c);
    if (finish) {
      this.finished = true;
      this.close(finish);
    }
  }

  private flushNow(data: string): void {
    this.lastWriteMs = this.writer.write(data);
  }

  // The stall is over: everything held back leaves in one write, stamped with its real send time.
  private flushStall(): void {
    this.stallUntil = 0;
    if (this.stallBuffer.length === 0) return;
    const data = this.stallBuffer.join('');
    this.stallBuffer = [];
    const finish = this.truthClosed ? undefined : this.stallFinish;
    const t = finish ? this.writer.end(data) : this.writer.write(data);
    this.lastWriteMs = t;
    for (const c of this.stallTokens) this.recordChunk(t, c);
    this.stallTokens = [];
    if (finish) this.close(finish);
  }

  private recordChunk(t: number, n: number): void {
    if (this.truth.firstTokenMs === undefined) this.truth.firstTokenMs = t;
    this.truth.chunks.push([t, n]);
  }

  private finishNonStream(finish: FinishReason): void {
    this.finished = true;
    const f = this.fault;
    if (f && (f.name === 'cut' || f.name === 'error-event')) {
      this.writer.destroy();
      this.close('error', f.name);
      return;
    }
    const content = outputText('content', 0, this.output - this.reasoning);
    const reasoning = this.reasoning > 0 ? outputText('reasoning', 0, this.reasoning) : '';
    let choice: string;
    if (this.req.api === 'chat') {
      const msg: Record<string, unknown> = {
        role: 'assistant',
        content: this.flavor.reasoningField ? content : reasoning + content,
      };
      if (this.flavor.reasoningField && reasoning) msg[this.flavor.reasoningField] = reasoning;
      choice = JSON.stringify({ index: 0, message: msg, logprobs: null, finish_reason: finish });
    } else {
      choice = JSON.stringify({ index: 0, text: reasoning + content, logprobs: null, finish_reason: finish });
    }
    const object = this.req.api === 'chat' ? 'chat.completion' : 'text_completion';
    const timings = this.flavor.timings ? `,"timings":${this.timings()}` : '';
    const body = `{"id":${JSON.stringify(this.req.id)},"object":"${object}","created":${this.req.createdS},"model":${JSON.stringify(this.req.model)},"choices":[${choice}],"usage":${this.usage(this.output, true)}${timings}}`;
    this.writer.head(200, { 'content-type': 'application/json' });
    const t = this.writer.end(body);
    this.recordChunk(t, this.output);
    this.close(finish);
  }

  private truthClosed = false;

  private close(reason: string, fault?: string): void {
    if (this.truthClosed) return;
    this.truthClosed = true;
    this.finished = true;
    const t = this.truth;
    t.endMs = this.clock.now();
    t.reason = reason;
    t.outputTokens = t.chunks.reduce((a, c) => a + c[1], 0);
    t.reasoningTokens = Math.min(this.reasoning, t.outputTokens);
    if (fault) t.fault = fault;
    this.log.add(t);
    this.onDone();
  }

  private clientGone(): void {
    if (this.truthClosed) return;
    this.finished = true;
    this.abortEngine();
    this.close('abort');
  }

  // Keep-alive comment while silent (tgi, llamacpp); called by the server's timer.
  keepAlive(now: number, everyMs: number): void {
    if (!this.flavor.keepAlive || !this.req.stream || this.finished || !this.writer.headSent) return;
    if (now - this.lastWriteMs >= everyMs) this.lastWriteMs = this.writer.write(this.flavor.keepAlive);
  }

  private delta(kind: 'reasoning' | 'content', text: string): string | null {
    if (this.req.api !== 'chat') return null;
    const field = kind === 'reasoning' && this.flavor.reasoningField ? this.flavor.reasoningField : 'content';
    const withRole = this.flavor.role === 'every' || (this.flavor.role === 'with-first' && !this.roleSent);
    if (withRole) this.roleSent = true;
    return withRole ? `{"role":"assistant","${field}":"${text}"}` : `{"${field}":"${text}"}`;
  }

  // One choice object; for completions `delta` carries the text instead (null = empty text).
  private choice(delta: string | null, finish: FinishReason | null, text?: string): string {
    const fr = finish ? `"${finish}"` : 'null';
    let extra = '';
    if (finish && (this.flavor.name === 'vllm' || this.flavor.name === 'trtllm'))
      extra = ',"stop_reason":null';
    if (finish && this.flavor.name === 'sglang') extra = ',"matched_stop":null';
    if (this.flavor.name === 'trtllm')
      extra += `,"avg_decoded_tokens_per_iter":${this.steps ? +(this.output / this.steps).toFixed(3) : 1}`;
    if (this.req.api === 'chat')
      return `{"index":0,"delta":${delta ?? '{}'},"logprobs":null,"finish_reason":${fr}${extra}}`;
    return `{"index":0,"text":"${text ?? ''}","logprobs":null,"finish_reason":${fr}${extra}}`;
  }

  private event(choice: string, completionTokens: number, suffix = '\n\n', extra = ''): string {
    const fp =
      this.flavor.fingerprint === 'always' ||
      (this.flavor.fingerprint === 'terminal' && choice.includes('"finish_reason":"'))
        ? `,"system_fingerprint":"${this.flavor.fingerprintValue}"`
        : '';
    const usage = this.req.continuousUsage ? `,"usage":${this.usage(completionTokens)}` : '';
    return `data: ${this.head}"choices":[${choice}]${fp}${usage}${extra}}${suffix}`;
  }

  // llama.cpp's timings from the truth so far: cache_n is what the prefix cache saved, prompt_n what was computed.
  private timings(): string {
    const t = this.truth;
    const now = this.clock.now();
    const first = t.firstTokenMs ?? now;
    const promptN = this.req.promptTokens - t.cachedTokens;
    const promptMs = Math.max(0, first - (t.admittedMs ?? t.arrivalMs));
    const predictedMs = Math.max(0, now - first);
    const rate = (n: number, ms: number) => (ms > 0 ? (n * 1000) / ms : 0);
    return JSON.stringify({
      cache_n: t.cachedTokens,
      prompt_n: promptN,
      prompt_ms: promptMs,
      prompt_per_token_ms: promptN > 0 ? promptMs / promptN : 0,
      prompt_per_second: rate(promptN, promptMs),
      predicted_n: this.output,
      predicted_ms: predictedMs,
      predicted_per_token_ms: this.output > 0 ? predictedMs / this.output : 0,
      predicted_per_second: rate(this.output, predictedMs),
    });
  }

  // `final`: the usage that closes a request (vLLM's reasoning detail is only there, not in continuous usage).
  private usage(completion: number, final = false): string {
    const u: Record<string, unknown> = {
      prompt_tokens: this.req.promptTokens,
      total_tokens: this.req.promptTokens + completion,
      completion_tokens: completion,
    };
    if (this.flavor.reasoningTokensInUsage) u.reasoning_tokens = Math.min(this.reasoning, completion);
    // Only with a reasoning parser configured (the profile's reasoningTokens > 0 stands for one).
    if (final && this.flavor.reasoningTokensDetails && this.req.reasoningParser)
      u.completion_tokens_details = { reasoning_tokens: Math.min(this.reasoning, completion) };
    if (this.req.cachedTokensInUsage) u.prompt_tokens_details = { cached_tokens: this.truth.cachedTokens };
    return JSON.stringify(u);
  }
}
