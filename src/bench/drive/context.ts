import type { RequestRecord } from '../../client/types.js';
import type { StreamRequestOptions } from '../../client/stream.js';

// What the runner needs from the outside world besides the clock (src/clock.ts), injected so a run is an object
// (no globals) and tests can substitute the transport or the prompts.
export interface PromptSource {
  prompt(contextTokens: number, slot: number): Promise<{ text: string; estTokens: number }>;
}

export type StreamFn = (opts: StreamRequestOptions) => Promise<RequestRecord>;
