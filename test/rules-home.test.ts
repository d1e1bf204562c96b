import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeOf, tsFiles } from './helpers/src-scan.js';
import { cellKey, isMeasured, kvDemandTokens, levelKey, DEFAULT_MAX_OUTPUT } from '../src/cell-rules.js';

// One home per rule (docs/architecture.md "Rules a cell follows"): the cell's rules live in src/cell-rules.ts, and
// this scan of src/ names every place that writes one out again. Each pattern matches the rule's code shape, not
// its words: a comment or a label may still say "N × (C + max output)".
const SRC = resolve(import.meta.dirname, '../src');
const HOME = 'cell-rules.ts';

const RULES: Array<{ rule: string; use: string; pattern: RegExp }> = [
  {
    rule: 'KV demand N * (C + max output)',
    use: 'kvDemandTokens',
    pattern:
      /\*\s*\(\s*[\w.!]+\s*\+\s*[\w.!]*max_?out\w*\s*\)|\(\s*[\w.!]+\s*\+\s*[\w.!]*max_?out\w*\s*\)\s*\*/i,
  },
  { rule: 'cell key `${C}x${N}`', use: 'cellKey', pattern: /\$\{[^}]+\}x\$\{/ },
  {
    rule: 'level key `${row}@${rate}/s`',
    use: 'levelKey',
    pattern: /\$\{[^}]+\}@(x\$\{|\$\{[^}]+\}\/s|trace`)/,
  },
  {
    rule: "measured = 'Valid' or 'Requests queued'",
    use: 'isMeasured',
    pattern:
      /'Valid'\s*\|\|\s*[\w.?]+\s*===\s*'Requests queued'|'Requests queued'\s*\|\|\s*[\w.?]+\s*===\s*'Valid'|\[\s*'Valid',\s*'Requests queued'\s*\]|!==\s*'(Over capacity|Failed)'(\s*&&\s*)+[\w.?]+\s*!==\s*'(Failed|Over capacity)'/,
  },
  {
    rule: 'the default max output 4,096',
    use: 'DEFAULT_MAX_OUTPUT',
    // As a default (`?? 4096`, `defaultValue: 4096`) or beside an output cap (`maxOutput = 4096`); 4096 as a
    // context or a socket backlog is another number.
    pattern:
      /(\?\?|defaultValue:)\s*4_?096\b|max.?(out|tokens)\w*\W+.*\b4_?096\b|\b4_?096\b.*max.?(out|tokens)/i,
  },
];

export function restated(rel: string, text: string): string[] {
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const r of RULES)
      if (r.pattern.test(codeOf(line))) out.push(`${rel}:${i + 1} writes ${r.rule} again: use ${r.use}`);
  });
  return out;
}

describe('one home per rule', () => {
  it('the rules themselves (hand-computed)', () => {
    expect(kvDemandTokens(8192, 16, 4096)).toBe(196_608); // 16 × (8,192 + 4,096)
    expect(cellKey(8192, 16)).toBe('8192x16');
    expect(levelKey('8192', { model: 'open', rate: 2.5 })).toBe('8192@2.5/s');
    expect(levelKey('shared-prefix', { model: 'closed', concurrency: 16 })).toBe('shared-prefix@x16');
    expect(levelKey('mooncake:file=t.jsonl,block=512', { model: 'trace' })).toBe(
      'mooncake:file=t.jsonl,block=512@trace',
    );
    expect([isMeasured('Valid'), isMeasured('Requests queued'), isMeasured('Over capacity')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(isMeasured('Failed') || isMeasured(undefined)).toBe(false);
    expect(DEFAULT_MAX_OUTPUT).toBe(4096);
  });

  it('the scan finds each rule written out, and lets other code be', () => {
    const bad = [
      'const need = n * (c + maxOutput);',
      'return (C + s.maxOutput) * N > kv;',
      'const key = `${c.contextTokens}x${c.concurrency}`;',
      'const key = `${row}@${level.rate}/s`;',
      'return `${row}@trace`;',
      'const k = `${row}@x${n}`;',
      "const ran = d.status === 'Valid' || d.status === 'Requests queued';",
      "if (['Valid', 'Requests queued'].includes(s)) n++;",
      "(c) => c.status !== 'Over capacity' && c.status !== 'Failed' && c.tokens > 0",
      'const maxOutput = grid.maxOutput ?? 4096;',
      '    defaultValue: 4096,',
      '  maxOutput = 4096,',
    ];
    for (const line of bad) expect(restated('x.ts', line), line).toHaveLength(1);
    const fine = [
      'return contextTokens + maxOutput <= maxModelLen;',
      'const ctxM = (b * (d.contextTokens + outMean)) / 1e6;',
      'reason: `${n} × (${c} + ${maxOutput}) = ${need} > KV capacity`,',
      "d.status === 'Valid' || (d.status === 'Requests queued' && d.concurrency > maxNumSeqs)",
      'export const DEMO_CONTEXTS = [1024, 2048, 4096, 8192];',
      'const SHORT_CONTEXT = 4096;',
      'server.listen({ port: 0, host, backlog: 4096 }, () => resolve());',
      '// the KV demand N * (C + maxOutput) in words',
      'const label = `${f}x faster`;',
      'command: `npx --yes ${TOOL_NAME}@${TOOL_VERSION}`,',
    ];
    for (const line of fine) expect(restated('x.ts', line), line).toEqual([]);
  });

  it('src/ writes none of them outside src/cell-rules.ts', () => {
    const found = tsFiles(SRC)
      .map((f) => relative(SRC, f))
      .filter((rel) => rel !== HOME)
      .flatMap((rel) => restated(rel, readFileSync(join(SRC, rel), 'utf8')));
    expect(found).toEqual([]);
  });
});
