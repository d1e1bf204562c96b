// Independent predictions of the prompt tokens an engine serves from its prefix cache, for requests served one at
// a time (each ends before the next arrives), from the rules docs/sim.md "Prefix cache" writes down, not from the
// sim's code (nothing here imports src/sim): tests compare the sim's truth with them.

export type Token = number | string;

export interface ServedRequest {
  prompt: readonly Token[];
  output: readonly Token[]; // the tokens the engine generated, in order (the sim's words: tokenizer outputText)
  finish: 'length' | 'stop'; // length: its last token's KV is never computed; stop: an EOS after it was
}

// Tokens whose KV the request leaves computed: prompt and output, less the last sampled token (never fed back).
function kvTokens(r: ServedRequest): Token[] {
  const out = r.finish === 'stop' ? r.output : r.output.slice(0, -1);
  return [...r.prompt, ...out];
}

function commonPrefix(a: readonly Token[], b: readonly Token[]): number {
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k++;
  return k;
}

/**
 * A vLLM-style block cache (docs/sim.md "Prefix cache: blocks"): `blocks` blocks of `blockSize` tokens. A request
 * hits its leading full prompt blocks that are cached (at most (prompt - 1) / blockSize of them: one prompt token
 * is always computed), takes them out of the free queue, then takes ceil(prompt / blockSize) - hits new blocks
 * from the head of the free queue (a block taken loses its hash), and more as its output grows, ceil((prompt +
 * output) / blockSize) in all. Every block full of computed tokens is cached under its content and everything
 * before it, even one with the same content as a cached block (a lookup takes the one cached first). At the end
 * its blocks join the tail of the free queue last block first. Returns each request's cached prompt tokens.
 */
export function predictBlockCache(
  requests: readonly ServedRequest[],
  o: { blockSize: number; blocks: number },
): number[] {
  const bs = o.blockSize;
  const ids = new Map<string, number>(); // a block's content and everything before it -> an id of its own
  const keyOf = (tokens: readonly Token[], n: number): number[] => {
    const keys: number[] = [];
    let parent = -1;
    for (let b = 0; (b + 1) * bs <= n; b++) {
      const k = `${parent}|${tokens.slice(b * bs, (b + 1) * bs).join(',')}`;
      let id = ids.get(k);
      if (id === undefined) ids.set(k, (id = ids.size));
      keys.push(id);
      parent = id;
    }
    return keys;
  };
  const hashOf: Array<number | undefined> = new Array<number | undefined>(o.blocks).fill(undefined);
  const cached = new Map<number, number[]>(); // key -> blocks holding it, the one cached first at the front
  const free = new Set(Array.from({ length: o.blocks }, (_, i) => i)); // in queue order: the first is taken next
  const take = (): number => {
    const b = free.values().next().value;
    if (b === undefined) throw new Error('the pool is smaller than one request');
    free.delete(b);
    const h = hashOf[b];
    if (h !== undefined) {
      const list = cached.get(h)!;
      list.splice(list.indexOf(b), 1);
      if (list.length === 0) cached.delete(h);
      hashOf[b] = undefined;
    }
    return b;
  };
  const hits: number[] = [];
  for (const r of requests) {
    const p = r.prompt.length;
    const kv = kvTokens(r);
    const keys = keyOf(kv, kv.length);
    let match = 0;
    while (match < Math.floor(p / bs) && cached.has(keys[match]!)) match++;
    const hit = Math.min(match, Math.floor((p - 1) / bs));
    const held: number[] = [];
    for (let i = 0; i < hit; i++) {
      const b = cached.get(keys[i]!)![0]!;
      free.delete(b);
      held.push(b);
    }
    const total = Math.ceil((p + r.output.length) / bs);
    while (held.length < total) held.push(take());
    for (let i = hit; i < keys.length; i++) {
      hashOf[held[i]!] = keys[i]!;
      const list = cached.get(keys[i]!);
      if (list) list.push(held[i]!);
      else cached.set(keys[i]!, [held[i]!]);
    }
    for (const b of held.reverse()) free.add(b);
    hits.push(hit * bs);
  }
  return hits;
}

/**
 * llama.cpp's slots and host-memory prompt cache (docs/sim.md "Prefix cache: llama.cpp"), `slots` slots and a
 * cache of `cacheTokens` tokens in all (0: none). A request takes the idle slot whose tokens share more than a
 * tenth of its prompt, the most (the first such on ties), and saves that slot's tokens to the cache first when it
 * shares less than half of them; else the least recently released slot (never used ones first, the last of
 * those), saving its tokens first. Saving skips tokens a cached state begins with (or that exceed the cache) and
 * drops the states they begin with, then appends; then the state sharing more of the prompt than the slot, both as
 * a share of itself (at least a quarter) and of the prompt, moves into the slot; then the oldest states go until
 * the cache fits. An empty slot saves and loads nothing. The request reuses the common prefix of the slot's
 * tokens and its prompt, less one when that is the whole prompt; its slot then holds its computed tokens.
 */
export function predictLlamacpp(
  requests: readonly ServedRequest[],
  o: { slots: number; cacheTokens: number },
): number[] {
  const slots = Array.from({ length: o.slots }, () => ({ tokens: [] as Token[], released: -1 }));
  let states: Token[][] = [];
  const out: number[] = [];
  requests.forEach((r, n) => {
    const p = r.prompt;
    let pick = -1;
    let best = 0;
    slots.forEach((s, i) => {
      const share = s.tokens.length > 0 ? commonPrefix(s.tokens, p) / p.length : 0;
      if (share > 0.1 && share > best) [best, pick] = [share, i];
    });
    let save: boolean;
    if (pick >= 0) save = commonPrefix(slots[pick]!.tokens, p) / slots[pick]!.tokens.length < 0.5;
    else {
      slots.forEach((s, i) => {
        if (pick < 0 || s.released <= slots[pick]!.released) pick = i;
      });
      save = true;
    }
    const slot = slots[pick]!;
    if (save && o.cacheTokens > 0 && slot.tokens.length > 0) {
      const mine = slot.tokens;
      if (mine.length <= o.cacheTokens && !states.some((s) => commonPrefix(s, mine) === mine.length)) {
        states = states.filter((s) => commonPrefix(s, mine) < s.length);
        states.push(mine);
      }
      let keep = commonPrefix(mine, p) / mine.length;
      let share = commonPrefix(mine, p) / p.length;
      let found = -1;
      states.forEach((s, i) => {
        const c = commonPrefix(s, p);
        if (c / s.length >= 0.25 && c / s.length > keep && c / p.length > share)
          [keep, share, found] = [c / s.length, c / p.length, i];
      });
      if (found >= 0) slot.tokens = states.splice(found, 1)[0]!;
      let total = states.reduce((a, s) => a + s.length, 0);
      while (states.length > 0 && total > o.cacheTokens) total -= states.shift()!.length;
    }
    out.push(Math.min(commonPrefix(slot.tokens, p), p.length - 1));
    slot.tokens = kvTokens(r);
    slot.released = n;
  });
  return out;
}
