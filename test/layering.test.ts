import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Imports run one way (docs/architecture.md "Layers"): every folder of src/ names the folders it may import, and
// this parses every import under src/ (static and dynamic) and names each one that is not on its folder's list.
// The modules at the top of src/ (clock, errors, cell-rules, ...) are the base every folder may import; they
// import no folder themselves, but index.ts, the package's entry, which exports from all of them.
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

const MAY_IMPORT: Record<string, readonly string[]> = {
  format: [],
  // What the tool knows of each engine (docs/architecture.md "Engine facts"): at the base, read by every folder.
  engines: [],
  failures: ['engines'],
  results: ['failures', 'engines', 'format'],
  // The pure method: figures, statuses, intervals, verdicts, service levels; the plan and its capacity rule.
  stats: ['results'],
  plan: ['results', 'engines', 'format'],
  // Capacity under a service level and its reason, judged from a result alone; what-ifs through its twin.
  answer: ['twin', 'stats', 'results', 'engines', 'format'],
  // The option table and its resolution (flags over YAML over defaults): below every command that takes options.
  config: ['plan', 'stats', 'results', 'engines', 'workloads'],
  // The server side of a run: the streaming client, what a server is, the prompts it is sent.
  client: ['failures'],
  prompts: ['client', 'format'],
  // What each request asks (docs/workloads.md): specs, length files and traces, request i of a workload.
  workloads: ['prompts', 'plan', 'results', 'format'],
  // When requests are sent: arrival processes, trace schedules, the sessions of a load level.
  load: ['workloads', 'prompts', 'plan', 'format'],
  target: ['client', 'failures', 'plan', 'results', 'engines', 'format'],
  // A separate program in one repository: nothing from the client side.
  sim: ['stats', 'plan', 'results', 'engines'],
  twin: ['sim', 'plan', 'results', 'format'],
  // Readers of results: they never reach a server.
  report: ['answer', 'stats', 'results', 'engines', 'format'],
  web: ['report', 'answer', 'stats', 'results', 'format'],
  progress: ['plan', 'results', 'format'],
  quick: ['answer', 'target', 'plan', 'stats', 'engines', 'format'],
  // The runner, and the sweep that runs it once per server configuration.
  bench: [
    'client',
    'target',
    'prompts',
    'plan',
    'stats',
    'results',
    'config',
    'progress',
    'failures',
    'engines',
    'format',
    'load',
    'workloads',
    'answer', // the rate search's verdicts and its next rate (answer/rate-search.ts)
  ],
  sweep: ['bench', 'config', 'plan', 'progress', 'results', 'target', 'engines', 'format'],
  deploy: [], // a scheduler's job as text, from the options: nothing of the measuring side
  cli: ['*'],
};

// Inside a folder, a part that must stay below the rest of it: path -> what it must not import.
const MUST_NOT: Record<string, readonly string[]> = {
  // client/: transport/ carries bytes (sockets, undici) into a sink; decode/ turns bytes into a record and
  // knows no socket; stream.ts and http.ts at the top compose them. Neither sub-folder imports the other.
  'client/transport': ['client/decode', 'client/stream', 'client/http'],
  'client/decode': [...IO, 'client/transport', 'client/stream', 'client/http'],
  // The executors (bench/drive: in this thread, workers/, agents/) run sessions for the run and its phases, below
  // them; the cycle check below keeps drive/ from importing the rest of bench/ at all.
  'bench/drive': ['bench/run', 'bench/phases', 'cli', 'report', 'web'],
  // The agents' protocol's pure parts: offsets, shares, the merge and the wire schemas (no I/O, no network).
  ...Object.fromEntries(
    ['offsets', 'shard', 'merge', 'protocol'].map((f) => [`bench/drive/agents/${f}`, IO]),
  ),
};

// Pure folders: no I/O of their own (files, sockets, processes, threads), so they are tested without any.
const PURE = [
  'engines',
  'format',
  'failures',
  'stats',
  'plan',
  'answer',
  'report',
  'progress',
  'quick',
  'prompts',
  'deploy',
  'load',
  'workloads',
];
// Modules of an allowed folder that a pure folder still may not import: they read and write files.
const IO_MODULES = ['results/io', 'results/read', 'results/sweep-io', 'workloads/read'];
// The one module of a pure folder that reads files, kept small so the rest stays pure (it is in IO_MODULES).
const IO_HOMES = ['workloads/read'];

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

// Top-level folders and base modules of src/: a target that is neither is a package ('zod', 'node:fs').
const ENTRIES = readdirSync(SRC, { withFileTypes: true });
const FOLDERS = new Set(ENTRIES.filter((e) => e.isDirectory()).map((e) => e.name));
const BASE = new Set(ENTRIES.filter((e) => e.isFile()).map((e) => e.name.replace(/\.ts$/, '')));

// What is wrong with one import of a file at `rel` (a path under src/), or undefined.
export function wrongImport(rel: string, target: string): string | undefined {
  const from = rel.includes('/') ? rel.split('/')[0]! : undefined;
  const into = target.split('/')[0]!;
  const folder = target.includes('/') && FOLDERS.has(into);
  const base = !target.includes('/') && BASE.has(target);
  if (from === undefined)
    return folder && rel !== 'index.ts' ? `${rel} (a base module) imports ${target}` : undefined;
  const path = rel.replace(/\.ts$/, '');
  for (const [at, rules] of Object.entries(MUST_NOT))
    if (hits(path, at))
      for (const r of rules) if (hits(target, r)) return `${rel} imports ${target} (${at} stays below it)`;
  const allowed = MAY_IMPORT[from];
  if (!allowed) return `${rel}: the folder ${from} has no layering rule in test/layering.test.ts`;
  if (
    PURE.includes(from) &&
    !IO_HOMES.includes(path) &&
    (IO.some((io) => hits(target, io)) || IO_MODULES.some((m) => hits(target, m)))
  )
    return `${rel} (pure) imports ${target}`;
  if (!folder || base || into === from || allowed.includes('*') || allowed.includes(into)) return undefined;
  return `${rel} imports ${target}: ${from} may import ${allowed.join(', ') || 'only the base modules'}`;
}

// Folders that import each other, both ways through any path: the strongly connected groups of the folder graph
// (Tarjan), each of two or more folders.
export function folderCycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) group.push(w);
    if (group.length > 1) out.push(group.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

// The executors' folders and the runner above them (docs/architecture.md "Layers"): one way only, so a session
// runner never needs the cell or the run that uses it.
const NO_CYCLES = ['bench', 'bench/drive', 'bench/drive/workers', 'bench/drive/agents'];

describe('layering', () => {
  it('finds imports of every kind (the parser itself)', () => {
    const f = join(SRC, 'bench/x.ts');
    const text = [
      "import { a } from '../report/index.js';",
      "import type { B } from './b.js';",
      "const c = await import('../cli/run.js');",
      "import 'node:fs';",
      'export { d } from "../results/io.js";',
      "import { e } from '../cell-rules.js';",
    ].join('\n');
    expect(importsOf(f, text)).toEqual([
      'report/index',
      'bench/b',
      'cli/run',
      'node:fs',
      'results/io',
      'cell-rules',
    ]);
  });

  it('judges an import by its folder rule (the judge itself)', () => {
    expect(wrongImport('report/text.ts', 'bench/run')).toMatch(/report may import answer, stats/);
    expect(wrongImport('answer/what-if.ts', 'client/stream')).toMatch(/answer may import twin/);
    expect(wrongImport('report/text.ts', 'results/schema')).toBeUndefined();
    expect(wrongImport('report/text.ts', 'results/io')).toMatch(/pure/);
    expect(wrongImport('stats/window.ts', 'node:fs')).toMatch(/pure/);
    expect(wrongImport('stats/window.ts', 'cell-rules')).toBeUndefined();
    expect(wrongImport('sim/server.ts', 'client/stream')).toMatch(/sim may import/);
    expect(wrongImport('cell-rules.ts', 'results/schema')).toMatch(/a base module/);
    expect(wrongImport('index.ts', 'bench/run')).toBeUndefined();
    expect(wrongImport('newfolder/x.ts', 'results/schema')).toMatch(/no layering rule/);
    expect(wrongImport('cli/run.ts', 'bench/run')).toBeUndefined();
    expect(wrongImport('engines/vllm.ts', 'target/types')).toMatch(/engines may import only the base/);
    expect(wrongImport('failures/classify.ts', 'engines/index')).toBeUndefined();
    expect(wrongImport('bench/drive/agents/hub.ts', 'bench/run')).toMatch(/stays below/);
    expect(wrongImport('bench/drive/agents/shard.ts', 'node:net')).toMatch(/stays below/);
    expect(wrongImport('client/decode/sse-decoder.ts', 'client/transport/h1-pool')).toMatch(/stays below/);
    expect(wrongImport('workloads/read.ts', 'node:fs')).toBeUndefined();
    expect(wrongImport('workloads/spec.ts', 'node:fs')).toMatch(/pure/);
    expect(wrongImport('load/sessions.ts', 'workloads/read')).toMatch(/pure/);
  });

  it('finds folders that import each other (the cycle finder itself)', () => {
    const g = (pairs: string[]) => {
      const m = new Map<string, Set<string>>();
      for (const p of pairs) {
        const [a, b] = p.split('>') as [string, string];
        m.set(a, (m.get(a) ?? new Set()).add(b));
      }
      return m;
    };
    expect(folderCycles(g(['a>b', 'b>c']))).toEqual([]);
    expect(folderCycles(g(['a>b', 'b>c', 'c>a', 'c>d']))).toEqual([['a', 'b', 'c']]);
    expect(folderCycles(g(['a>b', 'b>a', 'c>d', 'd>c', 'b>c']))).toEqual([
      ['c', 'd'],
      ['a', 'b'],
    ]);
  });

  it('has no import cycle between the executors and the runner', () => {
    const edges = new Map<string, Set<string>>();
    for (const file of files(SRC)) {
      const from = dirname(relative(SRC, file));
      if (!NO_CYCLES.includes(from)) continue;
      for (const target of importsOf(file, readFileSync(file, 'utf8'))) {
        const into = dirname(target);
        if (into !== from && NO_CYCLES.includes(into))
          edges.set(from, (edges.get(from) ?? new Set()).add(into));
      }
    }
    expect(edges.get('bench/drive/agents')?.has('bench/drive')).toBe(true); // the scan sees the folders
    expect(folderCycles(edges)).toEqual([]);
  });

  it('gives every folder of src/ a rule', () => {
    expect([...FOLDERS].filter((f) => !(f in MAY_IMPORT))).toEqual([]);
  });

  it('has no import under src/ that its folder may not make', () => {
    const wrong: string[] = [];
    for (const file of files(SRC)) {
      const rel = relative(SRC, file);
      for (const target of importsOf(file, readFileSync(file, 'utf8'))) {
        const w = wrongImport(rel, target);
        if (w) wrong.push(w);
      }
    }
    expect(wrong).toEqual([]);
  });
});
