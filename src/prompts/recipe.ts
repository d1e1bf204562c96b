// What a prompt is made of, as plain data (docs/workloads.md "Prompts"): a workload writes a recipe per request,
// a PromptBank (bank.ts) turns it into text on any thread or agent. `tokens` is the whole prompt as the server
// counts it, chat template included, as every context in this tool is.

export type PromptRecipe =
  /** The `fixed` workload's closed loop: slot `slot`'s prompt of the context, re-sent every turn (src/prompts
   * createPromptFactory, unchanged). */
  | { kind: 'slot'; contextTokens: number; slot: number }
  /** A prompt of `tokens` that shares nothing with any other: its head is unique to (salt, index). */
  | { kind: 'unique'; salt: string; index: number; tokens: number }
  /** Prefix `prefix` (prefixTokens of text, the same for every request that names it) then a unique suffix that
   * makes the whole prompt `tokens`. */
  | { kind: 'prefixed'; salt: string; prefix: number; prefixTokens: number; index: number; tokens: number }
  /** A Mooncake request: one text block of blockTokens per hash id, in order, the last cut so the whole prompt
   * is `tokens`. Equal ids give equal blocks under one salt. */
  | { kind: 'blocks'; salt: string; ids: readonly number[]; blockTokens: number; tokens: number }
  /** Turn `turn` of a conversation: the shared system prompt (systemTokens, 0 for none), then the user messages
   * of messageTokens each, with the answers the server gave to the earlier turns between them. */
  | {
      kind: 'turn';
      salt: string;
      conversation: number;
      turn: number;
      systemTokens: number;
      messageTokens: number;
    };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}
