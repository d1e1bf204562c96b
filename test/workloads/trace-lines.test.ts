import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScheduleText, parseTraceText } from '../../src/workloads/index.js';
import { loadWorkload, readScheduleFile } from '../../src/workloads/read.js';

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');

describe('length files and traces', () => {
  it('reads lengths, ignores other fields and blank lines', () => {
    const text = `${jsonl([
      { input_length: 100, output_length: 20, conversation: 'x' },
      { input_length: 7, output_length: 1 },
    ])}\n\n`;
    expect(parseTraceText(text, 'l.jsonl')).toEqual([
      { line: 1, input: 100, output: 20 },
      { line: 2, input: 7, output: 1 },
    ]);
  });

  it('reads a Mooncake trace, hash ids checked against the block, in time order', () => {
    const text = jsonl([
      { timestamp: 50, input_length: 1025, output_length: 5, hash_ids: [0, 1, 2] },
      { timestamp: 10, input_length: 512, output_length: 5, hash_ids: [0] },
      { timestamp: 50, input_length: 513, output_length: 5, hash_ids: [0, 3] },
    ]);
    const lines = parseTraceText(text, 't.jsonl', { block: 512, timestamps: true });
    expect(lines.map((l) => l.line)).toEqual([2, 1, 3]); // by timestamp, ties in file order
    expect(lines[1]).toEqual({ line: 1, timestamp: 50, input: 1025, output: 5, hashIds: [0, 1, 2] });
  });

  it.each([
    ['{"input_length": 1, "output_length": 1}\nnot json', /t.jsonl line 2: not JSON/],
    ['[1, 2]', /line 1: not a JSON object/],
    [
      '{"input_length": 0, "output_length": 1}',
      /line 1: input_length must be a whole number of tokens, at least 1/,
    ],
    ['{"input_length": 5, "output_length": 2.5}', /line 1: output_length must be/],
    [
      '{"input_length": 5, "output_length": 2, "timestamp": -1}',
      /line 1: timestamp must be a number of milliseconds/,
    ],
    ['', /t.jsonl has no requests/],
  ])('%j: names the line and what is wrong', (text, message) => {
    expect(() => parseTraceText(text, 't.jsonl')).toThrow(message);
  });

  it('a schedule needs timestamps and a Mooncake trace hash ids that cover its input', () => {
    const noTime = '{"input_length": 5, "output_length": 2}';
    expect(() => parseTraceText(noTime, 't.jsonl', { timestamps: true })).toThrow(
      /line 1: timestamp must be/,
    );
    const short = jsonl([{ input_length: 1100, output_length: 2, hash_ids: [4, 5] }]);
    expect(() => parseTraceText(short, 't.jsonl', { block: 512 })).toThrow(
      "line 1: 2 hash_ids for input_length 1,100, which takes 3 blocks of 512 tokens: is the trace's block size another (block=...)?",
    );
    expect(() => parseTraceText(noTime, 't.jsonl', { block: 512 })).toThrow(
      /line 1: hash_ids must be a list/,
    );
  });

  it('a schedule alone: timestamps in time order, other fields ignored, a line without one named', () => {
    expect(
      parseScheduleText('{"timestamp": 30}\n{"timestamp": 10, "x": 1}\n\n{"timestamp": 20.5}', 's'),
    ).toEqual([10, 20.5, 30]);
    expect(() => parseScheduleText('{"timestamp": 1}\n{"input_length": 5}', 's.jsonl')).toThrow(
      /s.jsonl line 2: timestamp must be/,
    );
    expect(() => parseScheduleText('\n', 's.jsonl')).toThrow(/s.jsonl has no requests/);
  });

  it('loadWorkload reads the file of a spec; a missing file is one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'workload-'));
    const f = join(dir, 'm.jsonl');
    writeFileSync(f, jsonl([{ timestamp: 0, input_length: 20, output_length: 3, hash_ids: [1, 2] }]));
    const w = await loadWorkload({ kind: 'mooncake', file: f, block: 16 });
    expect(w.lines).toEqual([{ line: 1, timestamp: 0, input: 20, output: 3, hashIds: [1, 2] }]);
    expect((await loadWorkload({ kind: 'lengths', file: f })).lines![0]!.input).toBe(20);
    expect(await loadWorkload({ kind: 'fixed' })).toEqual({ spec: { kind: 'fixed' } });
    expect(await readScheduleFile(f)).toEqual([0]);
    await expect(loadWorkload({ kind: 'lengths', file: join(dir, 'none.jsonl') })).rejects.toThrow(
      /cannot read .*none.jsonl: no such file or folder/,
    );
  });
});
