import { commonPrefix } from './tokenizer.js';

// llama.cpp's prompt reuse (docs/sim.md "Prefix cache: llama.cpp"), after llama-server's get_available_slot and
// server_prompt_cache alloc/load/update: each slot keeps the tokens its KV holds after its last request; a new
// request takes the idle slot sharing the most of its prompt (more than SLOT_SIMILARITY of it, -sps), else the
// least recently used one. When it takes a slot by recency, or one whose tokens it would mostly discard, the
// slot's tokens are saved to the host-memory prompt cache first, and a cached state that keeps more of the new
// prompt replaces them. The request then reuses the common prefix of the slot's tokens and its prompt.
// Sequences are keys (token ids, or block hashes where a caller has no ids: then `unit` tokens each).

const SLOT_SIMILARITY = 0.1; // llama-server -sps default
const KEEP_SAVE = 0.5; // a similarity pick that keeps less of the slot's tokens saves them first
const KEEP_LOAD = 0.25; // a cached state keeping less of itself than this is never restored

type Keys = ArrayLike<number>;

interface Slot {
  keys: Keys;
  lastUsed: number; // release order; -1 = never used
  busy: boolean;
}

export class LlamacppSlots {
  private readonly slots: Slot[];
  private readonly states: Keys[] = []; // the host-memory prompt cache, oldest first
  private releases = 0;
  private unit = 1; // tokens a key stands for

  constructor(
    count: number,
    private readonly cacheLimit: number, // keys the prompt cache holds in all (--cache-ram); 0 = no cache
  ) {
    this.slots = Array.from({ length: count }, () => ({ keys: [], lastUsed: -1, busy: false }));
  }

  /** Takes an idle slot for `prompt` (`unit` tokens a key); returns it and the leading keys its KV holds. */
  take(prompt: Keys, unit = 1): { slot: number; reused: number } {
    this.unit = unit;
    let pick = -1;
    let save: boolean;
    let best = 0;
    for (let i = 0; i < this.slots.length; i++) {
      const s = this.slots[i]!;
      if (s.busy || s.keys.length === 0) continue;
      const sim = commonPrefix(s.keys, prompt) / prompt.length;
      if (sim > best && sim > SLOT_SIMILARITY) {
        best = sim;
        pick = i;
      }
    }
    if (pick >= 0) save = (best * prompt.length) / this.slots[pick]!.keys.length < KEEP_SAVE;
    else {
      // Least recently used; among equals the last one (llama-server's `<=`).
      for (let i = 0; i < this.slots.length; i++) {
        const s = this.slots[i]!;
        if (!s.busy && (pick < 0 || s.lastUsed <= this.slots[pick]!.lastUsed)) pick = i;
      }
      save = true;
    }
    if (pick < 0) throw new Error('no idle llama.cpp slot');
    const slot = this.slots[pick]!;
    if (save && this.cacheLimit > 0 && slot.keys.length > 0) {
      this.save(slot.keys);
      this.load(slot, prompt);
      this.trim();
    }
    slot.busy = true;
    return { slot: pick, reused: commonPrefix(slot.keys, prompt) };
  }

  /** The request in `slot` ended; its KV holds `keys`. */
  release(slot: number, keys: Keys): void {
    this.slots[slot] = { keys, lastUsed: this.releases++, busy: false };
  }

  /** The host-memory prompt cache, oldest first (tests). */
  cached(): readonly Keys[] {
    return this.states;
  }

  // Kept unless a cached state already holds it; states it holds whole go.
  private save(keys: Keys): void {
    if (keys.length * this.unit > this.cacheLimit) return;
    if (this.states.some((s) => commonPrefix(s, keys) === keys.length)) return;
    for (let i = this.states.length - 1; i >= 0; i--)
      if (commonPrefix(this.states[i]!, keys) === this.states[i]!.length) this.states.splice(i, 1);
    this.states.push(keys);
  }

  // A cached state that keeps more of itself and covers more of the prompt than the slot's tokens moves into it.
  private load(slot: Slot, prompt: Keys): void {
    const own = commonPrefix(slot.keys, prompt);
    let keep = own / slot.keys.length;
    let sim = own / prompt.length;
    let found = -1;
    for (let i = 0; i < this.states.length; i++) {
      const s = this.states[i]!;
      const n = commonPrefix(s, prompt);
      if (n / s.length < KEEP_LOAD) continue;
      if (keep < n / s.length && sim < n / prompt.length) {
        keep = n / s.length;
        sim = n / prompt.length;
        found = i;
      }
    }
    if (found >= 0) slot.keys = this.states.splice(found, 1)[0]!;
  }

  private trim(): void {
    let total = this.states.reduce((a, s) => a + s.length, 0) * this.unit;
    while (this.states.length > 0 && total > this.cacheLimit)
      total -= this.states.shift()!.length * this.unit;
  }
}
