// The prompt factory's contract (docs/method.md "Prompts"), apart so the modules that implement it import no
// index.

export type PromptSizing = 'tokenize' | 'calibration' | 'estimate';

export interface PromptFactory {
  prompt(contextTokens: number, slot: number): Promise<{ text: string; estTokens: number }>;
  /** How the counts are known: 'tokenize' (exact), 'calibration' (probes), 'estimate' (probes failed). */
  readonly source: () => PromptSizing;
}

export interface PromptFactoryOptions {
  runId: string;
  seed: number;
  baseUrl: string;
  apiKey?: string;
  model: string;
  api: 'chat' | 'completions';
  tokenize?: (text: string) => Promise<number | undefined>;
  /** Chat only: false when `tokenize` counts the content alone (default true). */
  tokenizeCoversTemplate?: boolean;
  /** Tolerance of the tokenizer search as a fraction of the target (default 0.2%, well inside 1%). */
  tolerance?: number;
  probeTimeoutMs?: number;
  /** A change in how prompts are sized (tokenize failed, probes failed), in one line for the result. */
  onWarning?: (message: string) => void;
}
