// Feeds a transcript to a StreamSession in chosen reads; each read is stamped with the byte offset of its
// last byte, so an event's time is the offset of the byte that completed it, whatever the split.
import type { RequestRecord } from '../../src/client/types.js';
import { StreamSession, type SessionOptions } from '../../src/client/decode/stream-session.js';
import type { Rng } from '../../src/prompts/rng.js';

export async function feed(body: Buffer, cuts: number[], opts: SessionOptions = {}): Promise<RequestRecord> {
  const s = new StreamSession(opts);
  s.headers(200, 'text/event-stream', 0);
  let pos = 0;
  for (const cut of [...cuts, body.length]) {
    if (cut <= pos) continue;
    s.data(body.subarray(pos, cut), cut - 1);
    pos = cut;
  }
  s.end(body.length);
  return s.record(0, body.length);
}

export const whole = (b: Buffer) => [b.length];
export const bytewise = (b: Buffer) => Array.from({ length: b.length }, (_, i) => i + 1);
export function eventwise(b: Buffer): number[] {
  const cuts: number[] = [];
  for (let i = b.indexOf('\n\n'); i !== -1; i = b.indexOf('\n\n', i + 2)) cuts.push(i + 2);
  return cuts;
}
export function randomCuts(b: Buffer, rng: Rng, meanRead = 7): number[] {
  const cuts: number[] = [];
  for (let p = 0; p < b.length;) {
    p += 1 + Math.floor(rng() * meanRead * 2);
    cuts.push(Math.min(p, b.length));
  }
  return cuts;
}

/** The record without times: what must not depend on how the network split the bytes. */
export function timeless(r: RequestRecord) {
  const {
    sentAtMs: _s,
    endAtMs: _e,
    headersAtMs: _h,
    firstTokenAtMs: _f,
    maxGapMs: _g,
    stalls: _st,
    chunks,
    ...rest
  } = r;
  return { ...rest, chunkTokens: chunks.map((c) => c[1]) };
}
