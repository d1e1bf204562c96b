import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Imports run one way (DESIGN.md): cli -> bench -> (client, target, prompts, plan, stats) -> results; report reads
// results only (and the answer, judged from them); the sim imports nothing from the client side; stats/ and plan/ are pure. This parses every
// import under src/ (static and dynamic) and names each one that runs upward.
const SRC = resolve(import.meta.dirname, '../src');
const IO = [
  'node:fs',
  'node:http',
  'node:https',
  'node:net',
  'node:child_process',
  'node:worker_threads',
  'undici',
];
const CLIENT_SIDE = [
  'client',
  'bench',
  'target',
  'prompts',
  'progress',
  'report',
  'cli',
  'config',
  'twin',
  'web',
  'sweep',
];

// layer -> what it must not import: top-level folders of src/, module files (results/io) or packages.
const FORBIDDEN: Record<string, string[]> = {
  results: ['report', 'bench', 'cli', 'progress', 'sweep'],
  bench: ['report', 'cli', 'sweep'],
  progress: ['report', 'bench', 'cli'],
  report: ['bench', 'cli', 'client', 'sweep'],
  sweep: ['cli', 'report'], // cli -> sweep -> bench: the sweep runs `run`'s runner; its report reads sweep.json
  sim: CLIENT_SIDE,
  stats: [...IO, 'client', 'target', 'results/io', 'results/read', 'bench', 'report', 'cli'],
  plan: [...IO, 'client', 'target', 'results/io', 'results/read', 'bench', 'report', 'cli'],
  // The answer (capacity under a service level, its reason) is judged from a result alone, for every report.
  answer: [...IO, 'client', 'target', 'results/io', 'results/read', 'bench', 'report', 'cli', 'web'],
  // client/: transport/ carries bytes (sockets, undici) into a sink; decode/ turns bytes into a record and
  // knows no socket; stream.ts and http.ts at the top compose them. Neither sub-folder imports the other.
  'client/transport': ['client/decode', 'client/stream', 'client/http', 'bench', 'target', 'report', 'cli'],
  'client/decode': [
    ...IO,
    'client/transport',
    'client/stream',
    'client/http',
    'bench',
    'target',
    'report',
    'cli',
  ],
  // deploy prints a scheduler's job: text from the options, nothing of the measuring side.
  deploy: [...IO, 'bench', 'client', 'target', 'report', 'cli', 'web', 'sim', 'results/io'],
  // Agents are remote slot runners (docs/distributed.md): below the run and its phases, which use them.
  'bench/agents': ['bench/run', 'bench/phases', 'cli', 'report', 'web'],
  // The protocol's pure parts: offsets, slot shares, the merge and the wire schemas (no I/O, no network).
  ...Object.fromEntries(
    ['offsets', 'shard', 'merge', 'protocol'].map((f) => [
      `bench/agents/${f}`,
      [...IO, 'client/stream', 'target', 'results/io'],
    ]),
  ),
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

// Each import as a package name or a path under src/ without extension ("results/io").
export function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*)['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(re)) {
    const spec = m[1]!;
    if (!spec.startsWith('.')) out.push(spec);
    else out.push(relative(SRC, resolve(dirname(file), spec)).replace(/\.(js|ts)$/, ''));
  }
  return out;
}

const hits = (target: string, rule: string) => target === rule || target.startsWith(`${rule}/`);

describe('layering', () => {
  it('finds imports of every kind (the parser itself)', () => {
    const f = join(SRC, 'bench/x.ts');
    const text = [
      "import { a } from '../report/index.js';",
      "import type { B } from './b.js';",
      "const c = await import('../cli/run.js');",
      "import 'node:fs';",
      'export { d } from "../results/io.js";',
    ].join('\n');
    expect(importsOf(f, text)).toEqual(['report/index', 'bench/b', 'cli/run', 'node:fs', 'results/io']);
  });

  it('has no upward import under src/', () => {
    const wrong: string[] = [];
    for (const file of files(SRC)) {
      const rel = relative(SRC, file);
      const path = rel.replace(/\.ts$/, '');
      // A folder's rules and those of every folder or module it lies in ('bench' and 'bench/agents').
      const rules = Object.entries(FORBIDDEN).flatMap(([at, r]) => (hits(path, at) ? r : []));
      for (const target of importsOf(file, readFileSync(file, 'utf8')))
        for (const rule of rules) if (hits(target, rule)) wrong.push(`${rel} imports ${target}`);
    }
    expect(wrong).toEqual([]);
  });
});
