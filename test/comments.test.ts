import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The repository explains itself (docs/architecture.md "Conventions"): a comment or a page cites docs/ or an
// engine's observed behaviour, never a file a reader of the repository does not have (the founders' specs, an
// issue tracker, a path on one machine). This reads every comment of the code and every Markdown page.
const ROOT = resolve(import.meta.dirname, '..');
// Not the repository's own text: installed packages, build output, recorded fixtures, runs' output.
const SKIP = new Set(['node_modules', '.git', 'dist', 'test/fixtures', 'test-artifacts', 'results']);
const skipped = (dir: string, name: string) =>
  ['node_modules', '.git'].includes(name) || SKIP.has(relative(ROOT, join(dir, name)));
// Fixtures' own pages are read (they say where a fixture came from).
const FIXTURE_PAGES = ['test/fixtures/results/README.md'];

const OUTSIDE: Array<[RegExp, string]> = [
  [/\b(METHOD|DESIGN|STYLE|SIM|PEERS)\.md\b/, 'a spec outside the repository: cite the docs/ page'],
  [/\/work\/|\bshared\/(spec|seeds)\b/, 'a path outside the repository'],
  [/\bissues? #?\d+/i, 'an issue tracker entry: say what it found, or cite docs/'],
];

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    skipped(dir, e.name)
      ? []
      : e.isDirectory()
        ? files(join(dir, e.name), ext)
        : ext.test(e.name)
          ? [join(dir, e.name)]
          : [],
  );
}

// The comments of a TypeScript or YAML file, each with its line number: `//` and `#` comments, block lines.
export function commentsOf(text: string, yaml = false): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  text.split('\n').forEach((line, i) => {
    // A test's title is read as a comment: it is what a reader sees when the test fails.
    const title = yaml
      ? null
      : /\b(?:it|describe|test)(?:\.\w+(?:\([^)]*\))?)*\(\s*(['"`])(.*?)\1/.exec(line);
    if (title?.[2]) out.push([i + 1, title[2]]);
    const m = yaml
      ? /(?:^|\s)#\s?(.*)$/.exec(line)
      : /(?:^|[\s;,({])\/\/\s?(.*)$|^\s*\/?\*+\s?(.*)$/.exec(line);
    const c = m ? (m[1] ?? m[2] ?? '') : '';
    if (c) out.push([i + 1, c]);
  });
  return out;
}

// What is wrong with one comment or page line of `file`, or undefined. A page of the repository it names must
// exist: by its path from the root (docs/method.md) or from the file (../bench/README.md), or beside the file; a
// bare name that is a docs/ page elsewhere is ambiguous (the founders' specs had the same names). Other `.md`
// names are files the tool writes (report.md, summary.md).
export function outsideReference(file: string, text: string): string | undefined {
  for (const [re, why] of OUTSIDE) if (re.test(text)) return why;
  // A Markdown link is judged by its target: [performance.md](../docs/performance.md) is right from bench/.
  const targets = text.replace(/\[[^\]]*\]\(([^)\s#]*)[^)]*\)/g, ' $1 ');
  for (const m of targets.matchAll(/(?:^|[\s`("'[])((?:\.{1,2}\/|[\w-]+\/)*[\w-]+\.md)\b/g)) {
    const name = m[1]!;
    const repoPath = /^(\.{1,2}\/|(docs|src|test|bench|scripts|profiles)\/)/.test(name);
    const exists =
      existsSync(resolve(dirname(file), name)) || (!name.startsWith('.') && existsSync(resolve(ROOT, name)));
    if (repoPath && !exists) return `${name} is not in the repository`;
    // report.md is also the report `run` writes beside a result.
    if (!name.includes('/') && !exists && name !== 'report.md' && existsSync(join(ROOT, 'docs', name)))
      return `${name}: name it by its path (docs/${name})`;
  }
  // docs/X.md "Y": Y opens a heading or a bold term of that page (a quote broken over two lines is not read).
  for (const m of targets.matchAll(/\bdocs\/([\w-]+\.md)"?\s+\(?"([^"]+)"/g)) {
    const page = join(ROOT, 'docs', m[1]!);
    if (existsSync(page) && !anchorsOf(page).some((a) => a.startsWith(m[2]!.replace(/`/g, ''))))
      return `docs/${m[1]} has no heading or bold term "${m[2]}"`;
  }
  return undefined;
}

const anchors = new Map<string, string[]>();
// The headings and **bold terms** of a page, without backticks: what a citation may name.
function anchorsOf(page: string): string[] {
  let a = anchors.get(page);
  if (!a) {
    a = readFileSync(page, 'utf8')
      .split('\n')
      .flatMap((l) => [
        ...(/^#+ /.test(l) ? [l.replace(/^#+ /, '')] : []),
        ...[...l.matchAll(/\*\*([^*]+)\*\*/g)].map((b) => b[1]!),
      ])
      .map((x) => x.replace(/`/g, ''));
    anchors.set(page, a);
  }
  return a;
}

describe('comments point inside the repository', () => {
  it('the check itself', () => {
    const src = join(ROOT, 'src/x.ts');
    expect(outsideReference(src, 'the figures of METHOD.md')).toMatch(/spec/);
    expect(outsideReference(src, 'a unified pool (issue 16)')).toMatch(/issue/);
    expect(outsideReference(src, 'see /work/shared/spec/SIM.md')).toBeDefined();
    expect(outsideReference(src, 'engines.md §3')).toMatch(/by its path/);
    expect(outsideReference(src, 'writes report.md and summary.md beside it')).toBeUndefined();
    expect(outsideReference(src, 'docs/engines.md "Error bodies"')).toBeUndefined();
    expect(outsideReference(src, 'docs/nothing-here.md')).toMatch(/not in the repository/);
    expect(outsideReference(src, 'docs/method.md "Figures of a cell"')).toBeUndefined();
    expect(outsideReference(src, 'docs/method.md "Token counting"')).toMatch(/no heading/);
    expect(outsideReference(src, 'docs/sweep.md "Ready"')).toBeUndefined(); // a bold term
    expect(
      outsideReference(join(ROOT, 'bench/README.md'), '[sim.md](../docs/sim.md) "Calibration"'),
    ).toBeUndefined();
    expect(outsideReference(join(ROOT, 'bench/README.md'), '[sim.md](../docs/sim.md) "Nothing"')).toMatch(
      /no heading/,
    );
    expect(outsideReference(join(ROOT, 'bench/README.md'), '[sim.md](sim.md)')).toMatch(
      /not in the repository|path/,
    );
    expect(outsideReference(join(ROOT, 'docs/sim.md'), '[engines](engines.md)')).toBeUndefined();
    expect(outsideReference(src, 'an issue with the stream')).toBeUndefined();
    expect(
      commentsOf("it('issue 16: a unified pool', () => {").map(([, c]) => outsideReference(src, c)),
    ).toEqual([expect.stringMatching(/issue/)]);
    expect(commentsOf("const a = 'http://x'; // why (docs/method.md)\n * block line\nconst b = 1;")).toEqual([
      [1, 'why (docs/method.md)'],
      [2, 'block line'],
    ]);
  });

  it('no comment of the code names a file outside the repository', () => {
    const code = [
      ...['src', 'test', 'bench', 'scripts'].flatMap((d) => files(join(ROOT, d), /\.(ts|js|mjs)$/)),
      join(ROOT, 'vitest.config.ts'),
      join(ROOT, 'eslint.config.js'),
    ];
    // YAML profiles and the CI script: `#` comments.
    const yaml = [...files(join(ROOT, 'profiles'), /\.ya?ml$/), join(ROOT, '.ci/run')];
    const wrong: string[] = [];
    for (const f of [...code, ...yaml])
      for (const [line, c] of commentsOf(readFileSync(f, 'utf8'), yaml.includes(f))) {
        const why = f === join(ROOT, 'test/comments.test.ts') ? undefined : outsideReference(f, c);
        if (why) wrong.push(`${relative(ROOT, f)}:${line}: ${why}`);
      }
    expect(wrong).toEqual([]);
  });

  it('no page of the documentation does', () => {
    const wrong: string[] = [];
    for (const f of [...files(ROOT, /\.md$/), ...FIXTURE_PAGES.map((p) => join(ROOT, p))])
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((text, i) => {
          const why = outsideReference(f, text);
          if (why) wrong.push(`${relative(ROOT, f)}:${i + 1}: ${why}`);
        });
    expect(wrong).toEqual([]);
  });
});
