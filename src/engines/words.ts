// Reading a launch command: its words, a flag's value, whether a program is in it. Pure.

// Words of a shell command line as cmdlineToShell writes it ('...' quoting with '\'' escapes), plus "..." quoting.
export function shellWords(command: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < command.length) cur += command[++i];
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < command.length) {
      cur += command[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
    }
  }
  if (has || cur) out.push(cur);
  return out;
}

// Value of the first of `names` present: "--name value", "--name=value", or "NAME=value" (an environment variable).
export function flagValue(words: readonly string[], names: readonly string[]): string | undefined {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    for (const n of names) {
      if (w === n && i + 1 < words.length) return words[i + 1];
      if (w.startsWith(`${n}=`)) return w.slice(n.length + 1);
    }
  }
  return undefined;
}

export const hasFlag = (words: readonly string[], names: readonly string[]): boolean =>
  words.some((w) => names.includes(w));

export function intOf(v: string | undefined): number | undefined {
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  return Number(v);
}

export const intFlag = (words: readonly string[], names: readonly string[]): number | undefined =>
  intOf(flagValue(words, names));

// Whether a word's file name (the program, or a python module path) matches.
export const runs = (words: readonly string[], program: RegExp): boolean =>
  words.some((w) => program.test(w.split('/').pop() ?? w));

// Where a server listens, as most engines' flags say it (TGI: --hostname).
export const listenOn = (host: string, port: number, hostFlag = '--host'): string[] => [
  hostFlag,
  host,
  '--port',
  String(port),
];
