import { planLevel, type LevelSpec, type RequestPlan } from '../../load/sessions.js';
import { PromptBank, type PromptBankSnapshot } from '../../prompts/bank.js';
import type { ChatMessage } from '../../prompts/recipe.js';
import type { PromptSource } from './context.js';
import { sessionsIn, type Share } from './share.js';

// The text of a planned request, on any thread or agent: a slot's prompt from the prompt source (the fixed
// workload's closed loop, docs/method.md "Prompts"), every other recipe from the prompt bank's snapshot
// (docs/workloads.md "Prompts"), a conversation's turn with the answers its earlier turns got.
export interface PlanPrompt {
  text: string;
  estTokens: number; // the prompt's target
  messages?: ChatMessage[]; // a conversation on the chat API
}

export type PlanPrompts = (plan: RequestPlan, answers: readonly string[]) => Promise<PlanPrompt>;

export function planPrompts(slots: PromptSource, bank: PromptBankSnapshot | undefined): PlanPrompts {
  let texts: PromptBank | undefined;
  return async (plan, answers) => {
    const r = plan.prompt;
    if (r.kind === 'slot') return slots.prompt(r.contextTokens, r.slot);
    if (!bank) throw new Error(`a ${r.kind} prompt needs the prompt bank, and this runner was given none`);
    texts ??= new PromptBank(bank);
    const p = texts.prompt(r, answers);
    return { text: p.text, estTokens: plan.inputTokens, ...(p.messages ? { messages: p.messages } : {}) };
  };
}

/**
 * The slots whose prompts a share's sessions send, with their context: a closed level of the fixed workload
 * re-sends one per session (its first plan says which); no other level sends a slot's prompt. A worker or an agent
 * is given these texts, as it has no prompt source of its own.
 */
export function slotsOfShare(level: LevelSpec, share: Share): Array<{ contextTokens: number; slot: number }> {
  if (level.load.model !== 'closed') return [];
  const plan = planLevel(level);
  const out: Array<{ contextTokens: number; slot: number }> = [];
  for (const s of sessionsIn(share, plan.sessions)) {
    const r = plan.plan(plan.indexOf(s, 1)).prompt;
    if (r.kind === 'slot') out.push({ contextTokens: r.contextTokens, slot: r.slot });
  }
  return out;
}
