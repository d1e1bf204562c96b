import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toRequestLine, type Sent } from '../../src/bench/drive/sender.js';
import { isBenchError } from '../../src/errors.js';
import { appendRequestLines, keepRequestLines, readRequestLines } from '../../src/results/io.js';
import { RequestLine } from '../../src/results/request-line.js';

// requests.jsonl is declared once (src/results/request-line.ts) and read back validated: a bad line is one error
// naming the file and the line, a torn last line (kill -9 mid-append) is dropped, older lines still read.
const tmp = () => join(mkdtempSync(join(tmpdir(), 'lib-reqlines-')), 'requests.jsonl');

// A line as version 0.x of the runner wrote it, before sessions and levels (copied from a run of the sim).
const OLD =
  '{"cell":"decode 1024x2","phase":"window","contextTokens":1024,"slot":2,"requestId":"virtual-ab12-7",' +
  '"sentAtMs":1767225600100,"endAtMs":1767225600180,"chunks":[[12.5,1],[14.5,1]],"outputTokens":2,' +
  '"tokenCountSource":"continuous_usage","status":"ok","concurrency":2,"promptTokens":1024,"finishReason":"length"}';

function sent(over: Partial<Sent['spec']> = {}): Sent {
  return {
    spec: { cell: 'rate 2/s', phase: 'window', contextTokens: 900, slot: 3, maxOutput: 16, ...over },
    requestId: 'r-1',
    estTokens: 900,
    record: {
      sentAtMs: 1000.25,
      firstTokenAtMs: 1040,
      endAtMs: 1100,
      chunks: [
        [1040, 1],
        [1060.5, 2],
      ],
      outputTokens: 3,
      tokenCountSource: 'final_usage',
      promptTokens: 900,
      cachedTokens: 512,
      ok: true,
    },
  };
}

describe('requests.jsonl, one schema', () => {
  it('writes a session request with every new field and reads it back as written', () => {
    const path = tmp();
    const s = sent({
      scheduledAtMs: 999.5,
      releasedAtMs: 1000,
      session: 3,
      turn: 2,
      level: 'shared-prefix@2/s',
      inputTarget: 900,
      cacheableTokens: 512,
    });
    appendRequestLines(path, [toRequestLine(s)]);
    const [back] = readRequestLines(path);
    expect(back).toEqual({
      cell: 'rate 2/s',
      phase: 'window',
      contextTokens: 900,
      slot: 3,
      scheduledAtMs: 999.5,
      releasedAtMs: 1000,
      session: 3,
      turn: 2,
      level: 'shared-prefix@2/s',
      inputTarget: 900,
      cacheableTokens: 512,
      requestId: 'r-1',
      sentAtMs: 1000.25,
      endAtMs: 1100,
      // stored as ms after the send (39.75, 60.25), back as epoch ms
      chunks: [
        [1040, 1],
        [1060.5, 2],
      ],
      outputTokens: 3,
      tokenCountSource: 'final_usage',
      status: 'ok',
      firstTokenAtMs: 1040,
      promptTokens: 900,
      cachedTokens: 512,
    });
    expect(JSON.parse(readFileSync(path, 'utf8')).chunks).toEqual([
      [39.75, 1],
      [60.25, 2],
    ]);
  });

  it('reads a line written before sessions and levels existed', () => {
    const path = tmp();
    writeFileSync(path, `${OLD}\n`);
    const [l] = readRequestLines(path);
    expect(l!.chunks).toEqual([
      [1767225600112.5, 1],
      [1767225600114.5, 1],
    ]);
    expect(l!.session).toBeUndefined();
    expect(RequestLine.safeParse(JSON.parse(OLD)).success).toBe(true);
  });

  it('names the file and the line of a bad line; keeps the good ones when asked', () => {
    const path = tmp();
    const bad = OLD.replace('"outputTokens":2', '"outputTokens":-2');
    writeFileSync(path, `${OLD}\n\n${bad}\n${OLD}\n`);
    let err: unknown;
    try {
      readRequestLines(path);
    } catch (e) {
      err = e;
    }
    expect(isBenchError(err) && err.code).toBe('RESULT_INVALID');
    expect((err as Error).message).toBe(
      `${path} line 3 is not a request record: outputTokens: Too small: expected number to be >=0.`,
    );
    const heard: string[] = [];
    const good = readRequestLines(path, { keepGood: true, onBad: (b) => heard.push(`${b.line} ${b.why}`) });
    expect(good).toHaveLength(2);
    expect(heard).toEqual(['3 outputTokens: Too small: expected number to be >=0']);
    writeFileSync(path, `${OLD}\n{"cell":\n${OLD}\n`);
    expect(() => readRequestLines(path)).toThrow(/line 2 is not a request record: not JSON/);
  });

  it('drops a torn last line (kill -9 mid-append) without a word, on read and on resume', () => {
    const path = tmp();
    writeFileSync(path, `${OLD}\n`);
    appendFileSync(path, OLD.slice(0, 40)); // no newline: the write never finished
    expect(readRequestLines(path)).toHaveLength(1);
    const other = OLD.replace('decode 1024x2', 'decode 1024x4');
    writeFileSync(path, `${OLD}\n${other}\n${OLD.replace('"slot":2', '"slot":"two"')}\n${OLD.slice(0, 40)}`);
    const dropped = keepRequestLines(path, (cell) => cell === 'decode 1024x2');
    expect(dropped.map((b) => b.line)).toEqual([3]); // the torn line 4 is not counted
    expect(readFileSync(path, 'utf8')).toBe(`${OLD}\n`);
  });

  it('docs/result-schema.md names every field of the line', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/result-schema.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## requests.jsonl'));
    const named = new Set([...section.matchAll(/`(\w+)`/g)].map((m) => m[1]));
    expect(Object.keys(RequestLine.shape).filter((k) => !named.has(k))).toEqual([]);
  });

  it('a missing log is an empty one', () => {
    expect(readRequestLines(join(tmpdir(), 'no-such-dir-lib', 'requests.jsonl'))).toEqual([]);
  });
});
