import { readdirSync } from 'node:fs';
import { join } from 'node:path';

// Scanning src/ for a rule or fact written out again (test/rules-home.test.ts, test/engines/engine-facts-home.test.ts).

export function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

// Code only: a comment may name the rule in words.
export const codeOf = (line: string): string =>
  line.replace(/^\s*(\/\/|\*|\/\*).*$/, '').replace(/\s\/\/\s.*$/, '');
