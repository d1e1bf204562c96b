import { generic } from './generic.js';
import { llamacpp } from './llamacpp.js';
import { ollama } from './ollama.js';
import { sglang } from './sglang.js';
import { tgi } from './tgi.js';
import { trtllm } from './trtllm.js';
import type { EngineFacts, EngineName, EngineSettings, Flavor, KvLayout, LaunchLimits } from './types.js';
import { ENGINE_NAMES } from './types.js';
import { vllm } from './vllm.js';
import { shellWords } from './words.js';

// The registry of engine facts (docs/architecture.md "Engine facts"): one file per engine, read by every folder.
export * from './types.js';
export { shellWords } from './words.js';
export { llamacppSlots, pad256 } from './llamacpp.js';

export const ENGINES: Readonly<Record<EngineName, EngineFacts>> = {
  vllm,
  sglang,
  llamacpp,
  tgi,
  ollama,
  trtllm,
  generic,
};

/** The engine --engine names, by its name or an alias (any case), or undefined. */
export function engineNamed(name: string): EngineName | undefined {
  const key = name.trim().toLowerCase();
  return ENGINE_NAMES.find((n) => n === key || ENGINES[n].aliases.includes(key));
}

/**
 * The facts of the engine a result or a server names, leniently: a sim flavor (`sim-vllm`), the display name
 * (`vLLM`, `TensorRT-LLM`, `llama.cpp`) and an alias read as the engine; anything else as `generic`.
 */
export function engineOf(name: string): EngineFacts {
  const bare = name.trim().toLowerCase().replace(/^sim-/, '');
  const exact = engineNamed(bare);
  if (exact) return ENGINES[exact];
  const letters = bare.replace(/[^a-z]/g, '');
  return (
    Object.values(ENGINES).find(
      (e) => e.name === letters || e.aliases.some((a) => a.replace(/[^a-z]/g, '') === letters),
    ) ?? generic
  );
}

export const flavorFacts = (f: Flavor): EngineFacts => ENGINES[f];

/** The server's KV layout: as it or its launch command states it, else the engine's only one (undefined where the
 * engine has several and none was stated: llama.cpp read from its API). */
export function kvLayoutOf(engine: string, stated: KvLayout | undefined): KvLayout | undefined {
  const layouts = engineOf(engine).limits.layouts;
  return stated ?? (layouts.length === 1 ? layouts[0] : undefined);
}

/** What the engine's launch command states about its limits; undefined when it is not that engine's server. */
export function limitsFromLaunch(
  engine: string,
  command: string,
  o: { nCtxTrain?: number } = {},
): LaunchLimits | undefined {
  return engineOf(engine).readLaunch(shellWords(command), o);
}

const lower = (s: string) => s.toLowerCase();

/** Every engine's words for "the prompt (plus max_tokens) does not fit", lower case, with the engine's name. */
export const CONTEXT_EXCEEDED: ReadonlyArray<{ engine: string; says: string }> = Object.values(
  ENGINES,
).flatMap((e) => e.errors.contextExceeded.map((says) => ({ engine: e.display, says: lower(says) })));
export const CONTEXT_EXCEEDED_TYPES: ReadonlySet<string> = new Set(
  Object.values(ENGINES).flatMap((e) => e.errors.contextExceededTypes ?? []),
);
/** Every engine's words for "refused: queue full or overloaded", lower case. */
export const OVERLOADED: ReadonlyArray<{ engine: string; says: string }> = Object.values(ENGINES).flatMap(
  (e) => e.errors.overloaded.map((says) => ({ engine: e.display, says: lower(says) })),
);
/** Where any engine's too-long message quotes the prompt's length (group 1). */
export const PROMPT_TOKENS_IN_ERROR: readonly RegExp[] = Object.values(ENGINES).flatMap(
  (e) => e.errors.promptTokensIn,
);

const LAYOUT_WORDS: Record<KvLayout, string> = {
  pool: 'one pool the running requests share',
  split: 'split: each slot its own share',
  unified: 'unified: one pool the slots share',
  'per-request': 'a context of its own per parallel request',
  'token-budget': 'a token budget the batch is admitted under',
};

/** How the engine's KV is laid out, in words, where it may be laid out more than one way: known, or what tells. */
export function layoutWords(engine: string, layout: KvLayout | undefined): string | undefined {
  const e = engineOf(engine);
  if (e.limits.layouts.length < 2) return undefined;
  if (layout) return LAYOUT_WORDS[layout];
  return `${e.limits.layouts.join(' or ')}: the API cannot tell${e.limits.tellApart ? ` (${e.limits.tellApart} would)` : ''}`;
}

/** The settings the answer names, with the engine as people write it ("the server" when unknown). */
export function engineSettings(name: string): EngineSettings & { engine: string } {
  const e = engineOf(name);
  return { engine: e.display, ...e.settings };
}
