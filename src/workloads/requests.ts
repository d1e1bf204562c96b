// Request i of a workload (docs/workloads.md): its input tokens, output cap, prompt recipe and the tokens the
// workload made cacheable. Pure and seeded by index, so a worker or an agent given the same data and seed builds
// the same requests and can take its share by index.
import { BenchError } from '../errors.js';
import { fmtInt } from '../format/index.js';
import type { PromptRecipe } from '../prompts/recipe.js';
import { exponential, hashString, mulberry32 } from '../rng.js';
import { drawShape } from './shapes.js';
import { workloadLabel, type WorkloadSpec } from './spec.js';
import type { TraceLine } from './trace-lines.js';

export interface LoadedWorkload {
  spec: WorkloadSpec;
  /** The file's lines (read.ts): `lengths:file=` and `mooncake:` only. */
  lines?: readonly TraceLine[];
}

export interface WorkloadRequest {
  /** The whole prompt's tokens, chat template included; multi-turn: the conversation's content (docs/workloads.md). */
  inputTokens: number;
  maxOutput: number;
  prompt: PromptRecipe;
  /** Prompt tokens the workload made cacheable: what a prefix cache that kept everything would serve. */
  cacheableTokens: number;
  /** Multi-turn, from turn 2: the wait after the previous answer before this turn is sent. */
  thinkMs?: number;
}

export interface RequestContext {
  /** The run's seed, and the row: together they seed the lengths and think times (the same for every level). */
  seed: number;
  row: string;
  /** Text salt of a level (run id and level key): another level or run shares no prompt text with this one. */
  salt: string;
  /** --max-output: `fixed`'s and shared-prefix's cap, multi-turn's answers, lengths without out=. */
  maxOutput: number;
  /** `fixed`: the row's context. */
  contextTokens?: number;
  /** The model's window, where known: requests are fitted into it (docs/workloads.md "Longer than the window"). */
  maxModelLen?: number;
}

export interface WorkloadRequests {
  /** Turns of one conversation: 1, except multi-turn (its turns, fewer where the cap cuts them). */
  readonly turns: number;
  /** Request `item` (0-based: arrival, line or conversation), turn `turn` (1-based). */
  request(item: number, turn?: number): WorkloadRequest;
}

const rngOf = (...parts: Array<string | number>) => mulberry32(hashString(parts.join('|')));

function invalid(spec: WorkloadSpec, message: string): BenchError {
  return new BenchError('CONFIG_INVALID', `--workload ${workloadLabel(spec)}: ${message}`, {
    hint: 'See docs/workloads.md for what each parameter does.',
  });
}

/** The requests of a workload for one row of a run. Checks now what would fail later (a prompt past the window). */
export function workloadRequests(w: LoadedWorkload, ctx: RequestContext): WorkloadRequests {
  const { spec } = w;
  switch (spec.kind) {
    case 'fixed':
      return fixed(ctx);
    case 'lengths':
      return lengths(spec, w.lines, ctx);
    case 'shared-prefix':
      return sharedPrefix(spec, ctx);
    case 'multi-turn':
      return multiTurn(spec, ctx, invalid);
    case 'mooncake':
      return mooncake(spec, w.lines ?? [], ctx, fitterOf(ctx.maxModelLen));
  }
}

type Fit = (input: number, output: number) => { input: number; output: number };

// Output first, then the input into what is left of the window (at least 1 token each).
function fitterOf(window: number | undefined): Fit {
  return (input, output) => {
    if (window === undefined) return { input, output };
    const out = Math.min(output, Math.max(1, window - 1));
    return { input: Math.max(1, Math.min(input, window - out)), output: out };
  };
}

function needsFit(spec: WorkloadSpec, ctx: RequestContext, tokens: number, what: string): void {
  const window = ctx.maxModelLen;
  if (window !== undefined && tokens + ctx.maxOutput > window)
    throw invalid(
      spec,
      `${what} of ${fmtInt(tokens)} tokens and ${fmtInt(ctx.maxOutput)} of output pass the model's window of ` +
        `${fmtInt(window)}`,
    );
}

function fixed(ctx: RequestContext): WorkloadRequests {
  const c = ctx.contextTokens;
  if (c === undefined) throw new BenchError('INTERNAL', 'the fixed workload needs the row context');
  return {
    turns: 1,
    request: (item) => ({
      inputTokens: c,
      maxOutput: ctx.maxOutput,
      prompt: { kind: 'unique', salt: ctx.salt, index: item, tokens: c },
      cacheableTokens: 0,
    }),
  };
}

type Lengths = Extract<WorkloadSpec, { kind: 'lengths' }>;

// Each request its own lengths: line i mod L of a lengths file, or drawn from the spec's shapes.
function lengths(spec: Lengths, lines: LoadedWorkload['lines'], ctx: RequestContext): WorkloadRequests {
  const window = ctx.maxModelLen;
  const fit = fitterOf(window);
  const draw = (item: number) => {
    if (lines) {
      const l = lines[item % lines.length]!;
      return fit(l.input, l.output);
    }
    if (!('in' in spec)) throw new BenchError('INTERNAL', 'lengths:file= without its lines');
    const rng = rngOf(ctx.seed, ctx.row, 'lengths', item);
    const output = spec.out ? drawShape(spec.out, rng) : ctx.maxOutput;
    return fit(drawShape(spec.in, rng, window === undefined ? undefined : window - output), output);
  };
  return {
    turns: 1,
    request: (item) => {
      const { input, output } = draw(item);
      return {
        inputTokens: input,
        maxOutput: output,
        prompt: { kind: 'unique', salt: ctx.salt, index: item, tokens: input },
        cacheableTokens: 0,
      };
    },
  };
}

type SharedPrefix = Extract<WorkloadSpec, { kind: 'shared-prefix' }>;

function sharedPrefix(spec: SharedPrefix, ctx: RequestContext): WorkloadRequests {
  const tokens = spec.prefix + spec.suffix;
  needsFit(spec, ctx, tokens, 'a prompt');
  return {
    turns: 1,
    request: (item) => ({
      inputTokens: tokens,
      maxOutput: ctx.maxOutput,
      prompt: {
        kind: 'prefixed',
        salt: ctx.salt,
        prefix: item % spec.prefixes,
        prefixTokens: spec.prefix,
        index: item,
        tokens,
      },
      // Round robin: request i uses prefix i mod P, first used by request i mod P.
      cacheableTokens: item >= spec.prefixes ? spec.prefix : 0,
    }),
  };
}

type MultiTurn = Extract<WorkloadSpec, { kind: 'multi-turn' }>;

// A conversation: the system prompt S, then turn t adds a message M after the answer A to turn t - 1; turn t's
// context is S + t M + (t - 1) A, A taken at the output cap (what an answer is with ignore_eos).
function multiTurn(
  spec: MultiTurn,
  ctx: RequestContext,
  invalid: (s: WorkloadSpec, m: string) => BenchError,
): WorkloadRequests {
  const answer = ctx.maxOutput;
  const context = (t: number) => spec.system + t * spec.message + (t - 1) * answer;
  const cap = Math.min(
    spec.cap ?? Infinity,
    ctx.maxModelLen === undefined ? Infinity : ctx.maxModelLen - answer,
  );
  if (context(1) > cap)
    throw invalid(
      spec,
      `the first turn (${fmtInt(context(1))} tokens) already passes the context cap of ${fmtInt(cap)}` +
        (spec.cap === undefined || spec.cap > cap ? " (the model's window less the answer)" : ''),
    );
  let turns = 1;
  while (turns < spec.turns && context(turns + 1) <= cap) turns++;
  const thinkMs = (item: number, turn: number) =>
    spec.think.dist === 'const'
      ? spec.think.ms
      : exponential(rngOf(ctx.seed, ctx.row, 'think', item, turn)) * spec.think.meanMs;
  return {
    turns,
    request: (item, turn = 1) => {
      if (!(turn >= 1 && turn <= turns))
        throw new BenchError('INTERNAL', `turn ${turn} of a ${turns}-turn conversation`);
      return {
        inputTokens: context(turn),
        maxOutput: answer,
        prompt: {
          kind: 'turn',
          salt: ctx.salt,
          conversation: item,
          turn,
          systemTokens: spec.system,
          messageTokens: spec.message,
        },
        // The previous turn's prompt and answer; on a first turn, the system prompt an earlier one sent.
        cacheableTokens: turn > 1 ? context(turn - 1) + answer : item > 0 ? spec.system : 0,
        ...(turn > 1 ? { thinkMs: thinkMs(item, turn) } : {}),
      };
    },
  };
}

type Mooncake = Extract<WorkloadSpec, { kind: 'mooncake' }>;

// Line i mod L of the trace; each pass over the trace gets its own salt, so a second pass is as cold as the
// first and repeats the trace's own reuse, not the first pass's text.
function mooncake(
  spec: Mooncake,
  lines: readonly TraceLine[],
  ctx: RequestContext,
  fit: Fit,
): WorkloadRequests {
  if (lines.length === 0) throw new BenchError('INTERNAL', 'a mooncake workload without its lines');
  const cacheable = mooncakeCacheable(lines, spec.block);
  return {
    turns: 1,
    request: (item) => {
      const j = item % lines.length;
      const pass = Math.floor(item / lines.length);
      const l = lines[j]!;
      const { input, output } = fit(l.input, l.output);
      return {
        inputTokens: input,
        maxOutput: output,
        prompt: {
          kind: 'blocks',
          salt: pass === 0 ? ctx.salt : `${ctx.salt}#${pass}`,
          ids: l.hashIds!,
          blockTokens: spec.block,
          tokens: input,
        },
        cacheableTokens: Math.min(cacheable[j]!, input),
      };
    },
  };
}

/**
 * Per line, the tokens of its leading blocks whose ids appeared in an earlier line (the longest prefix of blocks
 * seen before, as a prefix cache matches); a block counts the tokens the line uses of it (its last is partial).
 */
export function mooncakeCacheable(lines: readonly TraceLine[], block: number): number[] {
  const seen = new Set<number>();
  return lines.map((l) => {
    const ids = l.hashIds ?? [];
    let k = 0;
    while (k < ids.length && seen.has(ids[k]!)) k++;
    for (const id of ids) seen.add(id);
    return Math.min(l.input, k * block);
  });
}
