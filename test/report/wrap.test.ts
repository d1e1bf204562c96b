import { describe, expect, it } from 'vitest';
import { wrap } from '../../src/report/text.js';

describe('wrap', () => {
  it('keeps a word whole when it fits the line, even one longer than a continuation line', () => {
    // 36 characters on a first line of 56: no cut, no space inside it.
    expect(wrap('predicted-twin-glm-5.3-flash-dflash2', 56, ' '.repeat(24))).toEqual([
      'predicted-twin-glm-5.3-flash-dflash2',
    ]);
  });

  it('wraps words, indenting the continuation lines, and never passes the width', () => {
    const lines = wrap('one two three four five six seven eight nine ten', 20, '  ');
    expect(lines).toEqual(['one two three four', '  five six seven', '  eight nine ten']);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(20);
  });

  it('cuts a word longer than a whole line into pieces that fill each line', () => {
    const lines = wrap(`see ${'x'.repeat(30)} end`, 12, '  ');
    expect(lines).toEqual([
      'see',
      `  ${'x'.repeat(10)}`,
      `  ${'x'.repeat(10)}`,
      `  ${'x'.repeat(10)}`,
      '  end',
    ]);
    expect(lines.join('').replace(/ /g, '')).toBe(`see${'x'.repeat(30)}end`);
  });
});
