import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/architecture.md is the map a newcomer reads first: it must name every folder of src/ (the ones
// test/layering.test.ts gives a rule) and every file it points at must exist.
const ROOT = resolve(import.meta.dirname, '..');
const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');

describe('docs/architecture.md', () => {
  it('owns every folder of src/ in its table, and draws it in the layers', () => {
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    const table = doc.slice(
      doc.indexOf('## What each folder owns'),
      doc.indexOf('## One run, from flag to report'),
    );
    const layers = doc.slice(doc.indexOf('## Layers'), doc.indexOf('## What each folder owns'));
    expect(folders.filter((f) => !table.includes(`| \`${f}/\``))).toEqual([]);
    expect(folders.filter((f) => !new RegExp(`(^|\\s)${f}/`, 'm').test(layers))).toEqual([]);
  });

  it('points only at files that exist', () => {
    const paths = [...doc.matchAll(/`((?:src|test|bench)\/[\w./-]+\.ts)`/g)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });
});
