import { describe, expect, it } from 'vitest';
import { decodeKey, parseCellKey, prefillKey } from '../../src/results/cell-key.js';

describe('cell keys of requests.jsonl', () => {
  it('builds the keys the log has always carried', () => {
    expect(prefillKey(8192)).toBe('prefill 8192');
    expect(decodeKey(8192, 4)).toBe('decode 8192x4');
  });

  it('parses what it builds, and nothing else', () => {
    expect(parseCellKey(decodeKey(131072, 64))).toEqual({
      kind: 'decode',
      contextTokens: 131072,
      concurrency: 64,
    });
    expect(parseCellKey(prefillKey(1024))).toEqual({ kind: 'prefill', contextTokens: 1024 });
    for (const k of ['connect', 'prefill ', 'prefill 12x', 'decode 1024', 'decode 1024x', 'xdecode 1x1', ''])
      expect(parseCellKey(k)).toBeUndefined();
  });
});
