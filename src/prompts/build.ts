// One slot prompt: unique marker first (distinct opening word per slot, then run id, context and slot),
// seeded filler, and a closing instruction that invites a long answer (docs/method.md "Prompts").
import { filler } from './filler.js';
import { hashString, createRng } from './rng.js';
import { OPENERS } from './words.js';

export interface PromptSpec {
  runId: string;
  contextTokens: number;
  slot: number;
  seed: number;
}

export const CLOSING_INSTRUCTION =
  '\n\nNow continue this story as a long, detailed narrative. Describe every person, place and event above ' +
  'in depth, invent what happens next, and keep writing for as long as you can without summarising or stopping early.';

/** The marker: its first word differs between the slots of one context (for slot < 150). */
export function promptHead(spec: PromptSpec): string {
  const base = hashString(`${spec.runId}|${spec.contextTokens}|${spec.seed}`);
  const opener = OPENERS[(base + spec.slot) % OPENERS.length]!;
  const tag = hashString(`${spec.runId}|${spec.contextTokens}|${spec.slot}|${spec.seed}`).toString(36);
  return `${opener} ${tag}: [run ${spec.runId}, context ${spec.contextTokens}, slot ${spec.slot}]\n\n`;
}

/**
 * Deterministic prompt text of about `targetChars` characters (default contextTokens x charsPerToken).
 * A longer target extends a shorter one (same paragraph order), so token count grows monotonically.
 */
export function buildPromptText(spec: PromptSpec, charsPerToken: number, targetChars?: number): string {
  const head = promptHead(spec);
  const total = targetChars ?? Math.round(spec.contextTokens * charsPerToken);
  const fillerChars = Math.max(0, total - head.length - CLOSING_INSTRUCTION.length);
  const rng = createRng((hashString(`${spec.runId}|${spec.contextTokens}|${spec.slot}`) ^ spec.seed) >>> 0);
  return head + filler(spec.seed, rng, fillerChars) + CLOSING_INSTRUCTION;
}
