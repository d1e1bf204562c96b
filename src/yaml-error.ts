// A YAML file that does not parse, said in one line (docs/reliability.md "Bad input"): the yaml library's first
// line ends in "at line 2, column 1:" before a snippet of several lines, so the problem comes first, then where,
// then the lines themselves; the line before too, since an unclosed bracket or quote is noticed a line later.

interface YamlErrorLike {
  message: string;
  linePos?: Array<{ line: number; col: number }>;
}

/** "line 2, column 1: flow sequence ... end with a ] (line 1: "contexts: [8K", line 2: "duration: 10")". */
export function yamlProblem(e: unknown, text?: string): string {
  const err = e as YamlErrorLike;
  const first = String(err.message ?? e).split('\n')[0]!;
  const problem = first.replace(/\s*at line \d+, column \d+:?\s*$/, '').trim();
  const pos = err.linePos?.[0];
  if (!pos) return problem;
  const where = `line ${pos.line}, column ${pos.col}`;
  const what = problem.charAt(0).toLowerCase() + problem.slice(1);
  if (text === undefined) return `${where}: ${what}`;
  const lines = text.split(/\r?\n/);
  const shown = [pos.line - 1, pos.line]
    .filter((n) => n >= 1 && n <= lines.length)
    .map((n) => `line ${n}: ${JSON.stringify(clip(lines[n - 1]!))}`);
  return `${where}: ${what}${shown.length ? ` (${shown.join(', ')})` : ''}`;
}

const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}...` : s);
