import { ApiServer, makeCurves, type Curves } from './curves.js';
import { KvCache } from './kv-cache.js';
import { LlamacppSlots } from './llamacpp-slots.js';
import type { Profile } from './profile-schema.js';
import { makeRng, mixSeed, type Rng } from './rng.js';
import { servingLimits, type ServingLimits } from './serving-limits.js';
import { acceptProbability, drawSpecTokens } from './speculative.js';
import { chainBlockHash, outputTokenId } from './tokenizer.js';

export interface RequestSpec {
  id: string;
  arrivalMs: number;
  promptTokens: number;
  blockHashes: readonly number[]; // hash per full prompt block (tokenizer.ts blockHashesOf)
  // The prompt's token ids (tokenizer.ts tokenIds), promptTokens of them: with them the engine caches the blocks
  // its output fills too, and llama.cpp's slots compare prompts token by token (else block by block).
  tokenIds?: ArrayLike<number>;
  maxTokens: number;
  minTokens?: number;
  ignoreEos?: boolean;
}

export type FinishReason = 'length' | 'stop';

export class Seq {
  status: 'waiting' | 'running' | 'done' = 'waiting';
  computed = 0; // tokens whose KV is computed
  target: number; // tokens to compute before decoding: the prompt, or prompt + output after a preemption
  output = 0;
  reasoning = 0;
  blocks: number[] = [];
  registered = 0; // blocks published to the prefix cache
  hashes: readonly number[]; // hash per full block of prompt + output known so far (the spec's until output fills one)
  slot: number | undefined; // llama.cpp: the slot it runs in
  cachedTokens: number | undefined;
  admittedMs: number | undefined;
  preemptions = 0;
  specCarry = 0; // expected acceptance: the fraction of a token the steps so far owe this sequence
  readonly stopAt: number;
  readonly stopReason: FinishReason;
  readonly rng: Rng;
  sink: unknown; // owner's per-request writer (the HTTP layer)

  constructor(
    readonly spec: RequestSpec,
    readonly index: number,
    seed: number,
    earlyStopRate: number,
    readonly reasoningBudget: number,
  ) {
    this.target = spec.promptTokens;
    this.hashes = spec.blockHashes;
    this.rng = makeRng(mixSeed(seed, index));
    const min = Math.max(1, spec.minTokens ?? 0);
    if (!spec.ignoreEos && spec.maxTokens > min && this.rng() < earlyStopRate) {
      this.stopAt = min + Math.floor(this.rng() * (spec.maxTokens - min));
      this.stopReason = 'stop';
    } else {
      this.stopAt = spec.maxTokens;
      this.stopReason = 'length';
    }
  }
  get id(): string {
    return this.spec.id;
  }
  get prefilled(): boolean {
    return this.computed >= this.target;
  }
  // Token `i` of prompt + output.
  tokenAt(i: number): number {
    const p = this.spec.promptTokens;
    return i < p ? this.spec.tokenIds![i]! : outputTokenId(i - p, this.reasoningBudget);
  }
  // Tokens whose KV is computed for good: the newest sampled token is fed (computed) only by the next step, and
  // never when the request ends at max tokens; a stop at EOS leaves the EOS, which the sim does not send, as
  // that last one. Before the first token, the prompt computed so far.
  kvTokens(finished = false): number {
    if (this.output === 0) return Math.min(this.computed, this.spec.promptTokens);
    const last = finished && this.stopReason === 'stop' ? 0 : 1;
    return Math.min(this.computed, this.spec.promptTokens + this.output - last);
  }
}

export interface StepEntry {
  seq: Seq;
  kind: 'prefill' | 'decode';
  tokens: number; // prompt tokens computed, or tokens generated
  cachedTokens?: number; // prefix-cache hits taken on admission
}

export interface StepPlan {
  startMs: number;
  endMs: number;
  entries: StepEntry[];
  admitted: Seq[];
  preempted: Seq[];
  failed: Seq[]; // a full unified pool (llama.cpp) ended these with an error
}

export interface Emission {
  seq: Seq;
  tokens: number;
  reasoningTokens: number; // of `tokens`, how many are reasoning (they come first)
  finish?: FinishReason;
}

export interface Counters {
  promptTokens: number;
  promptComputed: number; // of those, computed (not served from the prefix cache) on first admission
  generationTokens: number;
  preemptions: number;
  finished: Record<string, number>;
  specDrafts: number;
  specDraftTokens: number;
  specAcceptedTokens: number;
  specAcceptedPerPos: number[];
  steps: number;
  requests: number;
}

// The engine model of docs/sim.md ("What it models") in virtual time: plan(startMs) decides one step, complete(plan)
// applies it.
export class Scheduler {
  readonly kv: KvCache;
  readonly limits: ServingLimits;
  readonly curves: Curves;
  readonly api: ApiServer; // in front of the engine: when a received request reaches it
  readonly slots: LlamacppSlots | undefined; // llama.cpp's prompt reuse instead of block hashes
  readonly waiting: Seq[] = [];
  readonly running: Seq[] = [];
  private readonly byId = new Map<string, Seq>();
  private nextIndex = 0;
  private readonly accept: number;
  readonly counters: Counters = {
    promptTokens: 0,
    promptComputed: 0,
    generationTokens: 0,
    preemptions: 0,
    finished: {},
    specDrafts: 0,
    specDraftTokens: 0,
    specAcceptedTokens: 0,
    specAcceptedPerPos: [],
    steps: 0,
    requests: 0,
  };

  constructor(
    readonly profile: Profile,
    readonly seed = 0,
    // Every speculative step yields the mean accepted tokens (a sequence's fractions carried to its next step)
    // instead of a draw: a twin predicts the expectation, which one window's draws move 2-3% either way.
    readonly expectedAcceptance = false,
  ) {
    this.limits = servingLimits(profile);
    const llamacpp = this.limits.llamacpp;
    this.kv = new KvCache(this.limits.kvTokens, profile.blockSize, profile.prefixCaching && !llamacpp);
    this.slots =
      llamacpp && profile.prefixCaching
        ? new LlamacppSlots(llamacpp.slots, profile.promptCacheTokens ?? llamacpp.nCtx)
        : undefined;
    this.curves = makeCurves(profile);
    this.api = new ApiServer(profile);
    this.accept = profile.speculative
      ? acceptProbability(profile.speculative.k, profile.speculative.meanTokens)
      : 0;
    if (profile.speculative)
      this.counters.specAcceptedPerPos = new Array<number>(profile.speculative.k).fill(0);
  }

  private specTokens(seq: Seq, spec: { k: number; meanTokens: number }): number {
    if (!this.expectedAcceptance) return drawSpecTokens(seq.rng, spec.k, this.accept);
    seq.specCarry += spec.meanTokens;
    const n = Math.min(spec.k + 1, Math.floor(seq.specCarry));
    seq.specCarry -= n;
    return n;
  }

  submit(spec: RequestSpec): Seq {
    const seq = new Seq(
      spec,
      this.nextIndex++,
      this.seed,
      this.profile.earlyStopRate,
      this.profile.reasoningTokens,
    );
    // Admission is first come first served in the order requests reach the engine (arrivalMs), not the order they
    // were sent: a shorter prompt sent later leaves the API server first. Queued by send order, the head could be
    // one still in the API server while an arrived one waits behind it, and an idle engine re-armed for the
    // arrived one found nothing to admit, at the same instant, for ever (virtual time never moved on).
    let at = this.waiting.length;
    while (at > 0 && this.waiting[at - 1]!.spec.arrivalMs > spec.arrivalMs) at--;
    this.waiting.splice(at, 0, seq);
    this.byId.set(spec.id, seq);
    this.counters.requests++;
    return seq;
  }

  get(id: string): Seq | undefined {
    return this.byId.get(id);
  }

  // Client went away: drop the request wherever it is; its computed prompt blocks stay cached.
  abort(id: string): Seq | undefined {
    const seq = this.byId.get(id);
    if (!seq || seq.status === 'done') return undefined;
    const w = this.waiting.indexOf(seq);
    if (w >= 0) this.waiting.splice(w, 1);
    const r = this.running.indexOf(seq);
    if (r >= 0) this.running.splice(r, 1);
    this.finish(seq, 'abort');
    return seq;
  }

  get busy(): boolean {
    return this.running.length > 0 || this.waiting.length > 0;
  }

  // Requests that reached the engine by atMs and are not running (what a waiting gauge shows).
  waitingAt(atMs: number): number {
    let n = 0;
    for (const w of this.waiting) if (w.spec.arrivalMs <= atMs) n++;
    return n;
  }

  // Earliest arrival among waiting requests (they may arrive in the future: requestOverheadMs).
  nextArrivalMs(): number | undefined {
    let m: number | undefined;
    for (const w of this.waiting) if (m === undefined || w.spec.arrivalMs < m) m = w.spec.arrivalMs;
    return m;
  }

  plan(startMs: number): StepPlan | null {
    let budget = this.profile.maxBatchedTokens;
    const entries: StepEntry[] = [];
    const admitted: Seq[] = [];
    const preempted: Seq[] = [];
    const bs = this.kv.blockSize;
    const failAll = this.limits.onKvExhausted === 'fail-all';
    const exhausted = (): StepPlan => {
      const failed = this.running.splice(0);
      for (const s of failed) this.finish(s, 'error');
      return { startMs, endMs: startMs, entries: [], admitted, preempted, failed };
    };

    for (let i = 0; i < this.running.length && budget > 0; i++) {
      const seq = this.running[i]!;
      if (!seq.prefilled) {
        const chunk = Math.min(seq.target - seq.computed, budget);
        if (failAll && !this.grow(seq, seq.computed + chunk)) return exhausted();
        budget -= chunk;
        entries.push({ seq, kind: 'prefill', tokens: chunk });
        continue;
      }
      const room = seq.stopAt - seq.output;
      const n = Math.min(
        room,
        budget,
        this.profile.speculative ? this.specTokens(seq, this.profile.speculative) : 1,
      );
      if (n <= 0) continue;
      if (failAll) {
        if (!this.grow(seq, seq.spec.promptTokens + seq.output + n)) return exhausted();
      } else if (!this.ensureBlocks(seq, seq.spec.promptTokens + seq.output + n, preempted)) continue;
      budget -= n;
      entries.push({ seq, kind: 'decode', tokens: n });
    }

    while (
      preempted.length === 0 &&
      budget > 0 &&
      this.waiting.length > 0 &&
      this.running.length < this.profile.maxNumSeqs
    ) {
      const seq = this.waiting[0]!;
      if (seq.spec.arrivalMs > startMs) break;
      const hashes = seq.hashes;
      // At least one prompt token is always computed, as in vLLM and llama.cpp (it needs logits to sample from).
      const hit = Math.min(this.kv.matchPrefix(hashes), Math.floor((seq.target - 1) / bs));
      // A unified llama.cpp pool takes blocks as prefill goes (grow), so a free slot is all admission needs.
      const fresh = failAll ? 0 : this.kv.blocksFor(seq.target) - hit;
      if (this.kv.freeNeeded(hashes, hit, fresh) > this.kv.freeBlocks) break;
      this.waiting.shift();
      seq.blocks = this.kv.acquire(hashes, hit, fresh);
      const cached = this.slots ? Math.min(this.takeSlot(seq), seq.target - 1) : hit * bs;
      seq.computed = cached;
      seq.registered = hit;
      this.kv.queries += seq.target;
      this.kv.hits += cached;
      if (seq.admittedMs === undefined) {
        seq.admittedMs = startMs;
        seq.cachedTokens = cached;
      }
      seq.status = 'running';
      this.running.push(seq);
      admitted.push(seq);
      const chunk = Math.min(seq.target - seq.computed, budget);
      if (failAll && !this.grow(seq, seq.computed + chunk)) return exhausted();
      budget -= chunk;
      entries.push({ seq, kind: 'prefill', tokens: chunk, cachedTokens: cached });
    }

    if (entries.length === 0) return null;
    return { startMs, endMs: startMs + this.stepMs(entries), entries, admitted, preempted, failed: [] };
  }

  stepMs(entries: readonly StepEntry[]): number {
    let decodes = 0;
    let ctx = 0;
    let prefillMs = 0;
    for (const e of entries) {
      if (e.kind === 'decode') {
        decodes++;
        ctx += e.seq.spec.promptTokens + e.seq.output;
      } else {
        prefillMs += e.tokens * this.curves.prefillMsPerToken(e.seq.target);
      }
    }
    const base =
      decodes > 0
        ? this.curves.decodeStepMs(decodes, ctx)
        : this.profile.prefillOnlyStepMs / this.profile.timeScale;
    return base + prefillMs;
  }

  complete(plan: StepPlan): Emission[] {
    this.counters.steps++;
    const out: Emission[] = [];
    const bs = this.kv.blockSize;
    for (const e of plan.entries) {
      const seq = e.seq;
      if (seq.status !== 'running') continue;
      let gen: number;
      if (e.kind === 'prefill') {
        seq.computed += e.tokens;
        this.cacheBlocks(seq, seq.computed);
        if (!seq.prefilled) continue;
        if (seq.preemptions === 0) {
          this.counters.promptTokens += seq.spec.promptTokens;
          this.counters.promptComputed += seq.spec.promptTokens - (seq.cachedTokens ?? 0);
        }
        if (seq.output >= seq.stopAt) continue;
        // The step that finishes a prefill samples the next token; a recomputed sequence needs room for it too.
        if (seq.blocks.length * bs < seq.spec.promptTokens + seq.output + 1) {
          const b = this.kv.allocOne();
          if (b === undefined) continue;
          seq.blocks.push(b);
        }
        gen = 1;
      } else {
        gen = e.tokens;
        const spec = this.profile.speculative;
        if (spec) {
          this.counters.specDrafts++;
          this.counters.specDraftTokens += spec.k;
          this.counters.specAcceptedTokens += gen - 1;
          for (let p = 0; p < gen - 1; p++) this.counters.specAcceptedPerPos[p]!++;
        }
      }
      const reasoning = Math.max(0, Math.min(gen, seq.reasoningBudget - seq.output));
      seq.output += gen;
      seq.reasoning += reasoning;
      seq.computed = seq.spec.promptTokens + seq.output;
      this.counters.generationTokens += gen;
      const em: Emission = { seq, tokens: gen, reasoningTokens: reasoning };
      const done = seq.output >= seq.stopAt;
      this.cacheBlocks(seq, seq.kvTokens(done));
      if (done) {
        em.finish = seq.stopReason;
        const r = this.running.indexOf(seq);
        if (r >= 0) this.running.splice(r, 1);
        this.finish(seq, seq.stopReason);
      }
      out.push(em);
    }
    return out;
  }

  private finish(seq: Seq, reason: string): void {
    seq.status = 'done';
    if (this.slots && seq.slot !== undefined) this.slots.release(seq.slot, this.slotKeys(seq, reason));
    this.kv.release(seq.blocks);
    seq.blocks = [];
    this.byId.delete(seq.id);
    this.counters.finished[reason] = (this.counters.finished[reason] ?? 0) + 1;
  }

  // Publishes the full blocks of seq's first `tokens` tokens (prompt, then output) to the prefix cache, hashing
  // the blocks its output fills as they fill (its prompt's come with the request).
  private cacheBlocks(seq: Seq, tokens: number): void {
    const bs = this.kv.blockSize;
    const full = Math.min(Math.floor(tokens / bs), seq.blocks.length);
    if (seq.hashes.length < full && seq.spec.tokenIds) {
      const hashes = seq.hashes === seq.spec.blockHashes ? seq.hashes.slice() : (seq.hashes as number[]);
      const ids = new Array<number>(bs);
      while (hashes.length < full) {
        const i = hashes.length;
        for (let k = 0; k < bs; k++) ids[k] = seq.tokenAt(i * bs + k);
        hashes.push(chainBlockHash(i > 0 ? hashes[i - 1]! : 0, ids, 0, bs));
      }
      seq.hashes = hashes;
    }
    const n = Math.min(full, seq.hashes.length);
    for (; seq.registered < n; seq.registered++)
      this.kv.register(seq.blocks[seq.registered]!, seq.hashes[seq.registered]!);
  }

  // llama.cpp: the slot seq runs in, and the prompt tokens its KV already holds.
  private takeSlot(seq: Seq): number {
    const ids = seq.spec.tokenIds;
    const { slot, reused } = this.slots!.take(ids ?? seq.spec.blockHashes, ids ? 1 : this.kv.blockSize);
    seq.slot = slot;
    return ids ? reused : reused * this.kv.blockSize;
  }

  // What seq leaves in its llama.cpp slot: its tokens whose KV is computed (whole blocks without token ids).
  private slotKeys(seq: Seq, reason: string): ArrayLike<number> {
    const n = seq.kvTokens(reason === 'stop');
    if (!seq.spec.tokenIds) return seq.spec.blockHashes.slice(0, Math.floor(n / this.kv.blockSize));
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = seq.tokenAt(i);
    return keys;
  }

  // Grows seq to hold `tokens` from free blocks only; false when the pool is out of them.
  private grow(seq: Seq, tokens: number): boolean {
    const need = this.kv.blocksFor(tokens) - seq.blocks.length;
    if (need > this.kv.freeBlocks) return false;
    for (let i = 0; i < need; i++) seq.blocks.push(this.kv.allocOne()!);
    return true;
  }

  // Grows seq to hold `tokens`; preempts the newest running sequence (possibly seq itself) when blocks run out.
  private ensureBlocks(seq: Seq, tokens: number, preempted: Seq[]): boolean {
    const need = this.kv.blocksFor(tokens) - seq.blocks.length;
    while (need > this.kv.freeBlocks) {
      const victim = this.running[this.running.length - 1]!;
      this.preempt(victim);
      preempted.push(victim);
      if (victim === seq) return false;
    }
    for (let i = 0; i < need; i++) seq.blocks.push(this.kv.allocOne()!);
    return true;
  }

  private preempt(seq: Seq): void {
    this.running.pop();
    this.kv.release(seq.blocks);
    seq.blocks = [];
    seq.computed = 0;
    seq.registered = 0;
    seq.target = seq.spec.promptTokens + seq.output;
    seq.status = 'waiting';
    seq.preemptions++;
    this.counters.preemptions++;
    this.waiting.unshift(seq);
  }
}
