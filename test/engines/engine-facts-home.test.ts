import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeOf, tsFiles } from '../helpers/src-scan.js';
import { OPTIONS } from '../../src/config/options.js';
import { ENGINES } from '../../src/engines/index.js';
import { LLAMACPP_FLAGS } from '../../src/engines/llamacpp.js';
import { OLLAMA_ENV } from '../../src/engines/ollama.js';
import { SGLANG_FLAGS } from '../../src/engines/sglang.js';
import { TGI_FLAGS } from '../../src/engines/tgi.js';
import { TRTLLM_FLAGS } from '../../src/engines/trtllm.js';
import { VLLM_FLAGS } from '../../src/engines/vllm.js';

// One home per engine (docs/architecture.md "Engine facts"): an engine's flag names, its error texts and the table of
// its aliases live in src/engines/<engine>.ts, and this scan of the rest of src/ names every code line that writes one
// again. The facts to look for are read from the engine files themselves, so a new flag or text is guarded as soon as
// it is declared. Comments may name them in words.
const SRC = resolve(import.meta.dirname, '../../src');
const HOME = 'engines/';

const values = (o: Record<string, string | readonly string[]>): string[] => Object.values(o).flat();

// Flag tokens: long flags (--max-num-seqs, --max_batch_size), short ones of two letters or more (-np, -kvu) and
// environment variables (OLLAMA_NUM_PARALLEL); one-letter flags (-c, -b) are too common to scan for.
const FLAG = /(?:^|[\s(=])(--[a-zA-Z][\w-]+|-[a-z]{2,4}|[A-Z][A-Z0-9]*_[A-Z0-9_]+)(?=$|[\s),=])/g;
function flagTokens(text: string): string[] {
  return [...` ${text}`.matchAll(FLAG)].map((m) => m[1]!);
}

// An engine flag that is also one of our own options (--max-model-len) names our option wherever it is written; the
// engines' seats and KV flags the sim takes as its own options are scanned all the same.
const OURS = new Set(OPTIONS.flatMap((o) => flagTokens(o.flag)));
const SCANNED_ALTHOUGH_OURS = new Set(['--max-num-seqs', '--kv-unified']);

const flags = new Set(
  [
    ...Object.values(ENGINES).flatMap((e) => [
      e.settings.seats,
      ...e.settings.kv,
      e.settings.chunk ?? '',
      e.settings.admission ?? '',
      e.prefixCache.off ?? '',
      e.prefixCache.cachedTokens?.needs ?? '',
    ]),
    ...values(VLLM_FLAGS),
    ...values(SGLANG_FLAGS),
    ...values(LLAMACPP_FLAGS),
    ...values(TGI_FLAGS),
    ...values(TRTLLM_FLAGS),
    ...values(OLLAMA_ENV),
  ]
    .flatMap(flagTokens)
    .filter((f) => !OURS.has(f) || SCANNED_ALTHOUGH_OURS.has(f)),
);

const texts = new Set(
  Object.values(ENGINES).flatMap((e) => [
    ...e.errors.contextExceeded,
    ...(e.errors.contextExceededTypes ?? []),
    ...e.errors.overloaded,
    ...(e.errors.poolFull ? [e.errors.poolFull.replace(/\.$/, '')] : []),
  ]),
);

const aliases = Object.values(ENGINES).flatMap((e) => e.aliases);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Rule {
  fact: string;
  pattern: RegExp;
}
const RULES: Rule[] = [
  ...[...flags].map((f) => ({
    fact: `the engine flag ${f}`,
    pattern: new RegExp(`(?<![\\w-])${escape(f)}(?![\\w-])`),
  })),
  ...[...texts].map((t) => ({ fact: `the engine's words "${t}"`, pattern: new RegExp(escape(t), 'i') })),
  {
    fact: 'an alias table of engine names',
    pattern: new RegExp(`['"](${aliases.map(escape).join('|')})['"]\\s*:`),
  },
  { fact: 'a sim flavor read as its engine', pattern: /\^sim-/ },
];

// Our own options that share an engine's flag name (the sim takes --max-num-seqs and --kv-unified as vLLM and
// llama.cpp do; `fit --max-num-seqs` pins the twin's seats): they name our CLI, not the engine's.
const OWN_OPTIONS: ReadonlyArray<{ file: string; line: RegExp }> = [
  { file: 'config/options.ts', line: /^\s*flag: '--(max-num-seqs|kv-unified)\b/ },
  { file: 'twin/fit.ts', line: /^\s*from: '--max-num-seqs',$/ },
];

export function restated(rel: string, text: string): string[] {
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (OWN_OPTIONS.some((o) => o.file === rel && o.line.test(line))) return;
    for (const r of RULES)
      if (r.pattern.test(codeOf(line)))
        out.push(`${rel}:${i + 1} writes ${r.fact} again: read it from src/engines`);
  });
  return out;
}

describe('one home per engine', () => {
  it('reads the facts to guard from the engine files', () => {
    for (const f of [
      '--max-num-seqs',
      '-np',
      '--parallel',
      '--kv-unified',
      '-kvu',
      'OLLAMA_NUM_PARALLEL',
      '--max-running-requests',
      '--max-batch-total-tokens',
      '--max-concurrent-requests',
      '--max_batch_size',
      '--enable-prompt-tokens-details',
      '--enable-cache-report',
    ])
      expect(flags, f).toContain(f);
    expect(flags).not.toContain('-c'); // too common to scan for
    expect(flags).not.toContain('--max-model-len'); // our own option too
    expect(texts).toContain('Context size has been exceeded');
    expect(texts).toContain('exceed_context_size_error');
    expect(texts).toContain('model is overloaded');
  });

  it('the scan finds each fact written out, and lets other code be', () => {
    const bad = [
      "seats: '--max-num-seqs',",
      "const np = flagValue(words, ['-np', '--parallel']);",
      'return `llama-server -c ${c} -np ${n} --kv-unified`;',
      '`OLLAMA_NUM_PARALLEL=${p.maxNumSeqs}`,',
      "if (words.includes('-kvu')) unified = true;",
      "const t = 'python -m sglang.launch_server --max-running-requests 8';",
      "kv: ['--cuda-memory-fraction', '--max-batch-total-tokens'],",
      "admission: '--max-concurrent-requests',",
      "const message = 'Context size has been exceeded.';",
      "if (m.includes('exceeds the available context size')) return true;",
      "const TYPES = new Set(['exceed_context_size_error']);",
      "return f === 'tgi' ? 'Model is overloaded' : 'Server overloaded';",
      "  'llama.cpp': 'llamacpp',",
      "const key = name.toLowerCase().replace(/^sim-/, '');",
    ];
    for (const line of bad) expect(restated('x.ts', line), line).not.toEqual([]);
    const fine = [
      "spawn('/bin/sh', ['-c', cmd.command]);",
      "const a = ['--max-output', '--concurrency', '--kv-capacity'];",
      '// llama.cpp -np 4 gives each slot -c / 4 (--kv-unified shares it)',
      'const parallel = options.parallel ?? 1;',
      "const runs = 'llama.cpp'; // an engine's display name",
      "if (e.name === 'tgi') hint = 'see --help';",
      "const w = 'np=concurrency,c/np=max-model-len';",
    ];
    for (const line of fine) expect(restated('x.ts', line), line).toEqual([]);
    expect(restated('config/options.ts', "    flag: '--max-num-seqs <n>',")).toEqual([]);
    expect(restated('report/text.ts', "    flag: '--max-num-seqs <n>',")).not.toEqual([]);
  });

  it('src/ writes none of them outside src/engines', () => {
    const found = tsFiles(SRC)
      .map((f) => relative(SRC, f))
      .filter((rel) => !rel.startsWith(HOME))
      .flatMap((rel) => restated(rel, readFileSync(join(SRC, rel), 'utf8')));
    expect(found).toEqual([]);
  });
});
