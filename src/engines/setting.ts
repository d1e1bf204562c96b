import type { EngineSettings } from './types.js';

const n = (x: number) => x.toLocaleString('en-US');

// The usual way to say a change of seats and KV: the seats flag with its value, the KV cache in tokens with the
// settings that size it (most engines size it by memory, not by a token count).
export const settingWords =
  (s: EngineSettings) =>
  (want: { seats?: number; kvTokens?: number }): string =>
    [
      want.seats !== undefined ? `${s.seats} ${want.seats}` : '',
      want.kvTokens !== undefined ? `a KV cache of ${n(want.kvTokens)} tokens (${s.kv[0]})` : '',
    ]
      .filter(Boolean)
      .join(' and ');
