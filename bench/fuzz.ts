// bench:fuzz — the SSE decoder and chunk parser (src/client StreamSession) fuzzed for a fixed time: random bytes,
// engine-like pieces, invalid UTF-8, random splits, huge lines and never-ending lines. Fails on a throw, a case
// slower than 2 s (hang), a record that depends on how the bytes were split, or memory past its bound.
// Usage: npm run bench:fuzz [-- --seconds=60] [-- --seed=7]   (test/client holds the bounded CI version)
import { StreamSession } from '../src/client/decode/stream-session.js';
import { MAX_LINE_BYTES } from '../src/client/decode/line-decoder.js';
import type { RequestRecord } from '../src/client/types.js';
import { createRng, type Rng } from '../src/prompts/rng.js';
import { feed, randomCuts, timeless, whole } from '../test/client/feed.js';
import { benchArgs } from './lib/args.js';

const ARGS = benchArgs(
  { name: 'bench:fuzz', about: 'The SSE decoder and chunk parser fed random and engine-like bytes.' },
  {
    seconds: { type: 'number', default: 60, help: 'how long to fuzz' },
    seed: { type: 'number', default: 7, help: 'seed of the random cases' },
  },
);
const SECONDS = ARGS.seconds;
const rng = createRng(ARGS.seed);
const CASE_LIMIT_MS = 2000;

const PIECES = [
  'data: ',
  'data:',
  'event: error\n',
  ': ping\n',
  '\n',
  '\n\n',
  '\r',
  '\r\n',
  '{',
  '}',
  '"',
  '\\',
  '[DONE]',
  '{"choices":[{"delta":{"content":"',
  '"}}]}',
  '"reasoning_content":"',
  '"usage":{"completion_tokens":',
  '"finish_reason":"stop"',
  'null',
  '9',
  '-1',
  '1e309',
  '"error":{"message":"x"}',
  'id: 1\n',
  'retry: 5\n',
];
// Invalid UTF-8: lone continuation, truncated 2/3/4-byte sequences, overlong NUL, surrogate half, 0xFF.
const BAD_UTF8 = [
  [0x80],
  [0xc3],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xff],
  [0xfe, 0xfe],
];

function chunkLine(text: string): string {
  return `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: text } }] })}\n\n`;
}

function randomBody(r: Rng): Buffer {
  const parts: Buffer[] = [];
  const n = 1 + Math.floor(r() * 200);
  for (let i = 0; i < n; i++) {
    const x = r();
    if (x < 0.15)
      parts.push(Buffer.from(Array.from({ length: 1 + Math.floor(r() * 8) }, () => Math.floor(r() * 256))));
    else if (x < 0.25) parts.push(Buffer.from(BAD_UTF8[Math.floor(r() * BAD_UTF8.length)]!));
    else if (x < 0.45) parts.push(Buffer.from(chunkLine(r() < 0.5 ? 'tok' : 'é😀\u2028')));
    else parts.push(Buffer.from(PIECES[Math.floor(r() * PIECES.length)]!));
  }
  return Buffer.concat(parts);
}

interface Stats {
  cases: number;
  bytes: number;
  maxCaseMs: number;
  kinds: Record<string, number>;
  failures: string[];
  peakRssMb: number;
}
const stats: Stats = { cases: 0, bytes: 0, maxCaseMs: 0, kinds: {}, failures: [], peakRssMb: 0 };

function note(r: RequestRecord): void {
  const k = r.ok ? 'ok' : (r.error?.kind ?? 'unknown');
  stats.kinds[k] = (stats.kinds[k] ?? 0) + 1;
  if (r.outputTokens < 0 || !Number.isFinite(r.outputTokens))
    stats.failures.push(`bad token count ${r.outputTokens}`);
}

// The hang limit grows with the bytes a case feeds (a 12 MB line costs real time on a busy 2-core box).
async function timed(name: string, fn: () => Promise<void>): Promise<void> {
  const bytes0 = stats.bytes;
  const t0 = performance.now();
  try {
    await fn();
  } catch (e) {
    stats.failures.push(`${name}: threw ${(e as Error).message}`);
  }
  const ms = performance.now() - t0;
  stats.maxCaseMs = Math.max(stats.maxCaseMs, ms);
  const limit = CASE_LIMIT_MS + ((stats.bytes - bytes0) / 2 ** 20) * 400;
  if (ms > limit) stats.failures.push(`${name}: ${Math.round(ms)} ms (limit ${Math.round(limit)}; hang?)`);
  stats.cases++;
  stats.peakRssMb = Math.max(stats.peakRssMb, process.memoryUsage().rss / 2 ** 20);
}

// Random bodies: whole vs random splits, fast path vs full parse, must agree.
async function randomCase(): Promise<void> {
  const body = randomBody(rng);
  stats.bytes += body.length;
  const a = await feed(body, whole(body), { keepText: true, fastPath: false });
  const b = await feed(body, randomCuts(body, rng, 1 + Math.floor(rng() * 64)), { keepText: true });
  note(a);
  if (JSON.stringify(timeless(a)) !== JSON.stringify(timeless(b)))
    stats.failures.push(
      `split/fast-path dependence on a ${body.length}-byte body (seeded case ${stats.cases})`,
    );
}

// A huge but finite line (1-12 MB of content) is decoded, whatever the split.
async function hugeLineCase(): Promise<void> {
  const mb = 1 + Math.floor(rng() * 12);
  const body = Buffer.from(chunkLine('x'.repeat(mb * 2 ** 20)) + 'data: [DONE]\n\n');
  stats.bytes += body.length;
  const r = await feed(body, randomCuts(body, rng, 65536));
  note(r);
  if (!r.ok || r.chunks.length !== 1)
    stats.failures.push(`huge line of ${mb} MB not decoded: ${r.error?.kind}`);
}

// A line that never ends, then an event that never ends: the request fails with line_too_long, memory bounded.
async function endlessCase(kind: 'line' | 'event'): Promise<void> {
  const s = new StreamSession();
  s.headers(200, 'text/event-stream', 0);
  const rss0 = process.memoryUsage().rss;
  const piece =
    kind === 'line' ? Buffer.alloc(2 ** 20, 0x61) : Buffer.from(`data: ${'y'.repeat(4096)}\n`.repeat(256));
  if (kind === 'line') s.data(Buffer.from('data: {"choices":[{"delta":{"content":"'), 0);
  let fed = 0;
  for (let i = 0; i < 4096 && !s.stopped; i++) {
    s.data(piece, i);
    fed += piece.length;
  }
  stats.bytes += fed;
  const grewMb = (process.memoryUsage().rss - rss0) / 2 ** 20;
  s.end(1);
  const r = await s.record(0, 1);
  note(r);
  if (r.error?.kind !== 'line_too_long')
    stats.failures.push(`endless ${kind}: ${r.error?.kind ?? 'ok'}, not line_too_long`);
  if (fed > MAX_LINE_BYTES * 2.5) stats.failures.push(`endless ${kind}: still reading after ${fed} bytes`);
  if (grewMb > 3 * (MAX_LINE_BYTES / 2 ** 20) + 64)
    stats.failures.push(`endless ${kind}: memory grew ${Math.round(grewMb)} MB`);
}

const t0 = Date.now();
let i = 0;
while (Date.now() - t0 < SECONDS * 1000) {
  const which = i++ % 50;
  if (which === 0) await timed('endless line', () => endlessCase('line'));
  else if (which === 1) await timed('endless event', () => endlessCase('event'));
  else if (which < 4) await timed('huge line', hugeLineCase);
  else await timed('random', randomCase);
}
const lines = [
  `fuzz: ${stats.cases} cases, ${(stats.bytes / 2 ** 20).toFixed(1)} MB fed in ${SECONDS} s`,
  `slowest case ${stats.maxCaseMs.toFixed(1)} ms (limit ${CASE_LIMIT_MS} ms + 400 ms/MB fed), peak RSS ${stats.peakRssMb.toFixed(0)} MB`,
  `records by outcome: ${JSON.stringify(stats.kinds)}`,
  `failures: ${stats.failures.length}`,
  ...stats.failures.slice(0, 20).map((f) => `  ! ${f}`),
];
process.stdout.write(lines.join('\n') + '\n');
process.exitCode = stats.failures.length ? 1 : 0;
