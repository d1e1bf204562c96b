import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseServiceLevel } from '../../src/stats/slo.js';
import { COMPARE_FORMATS, renderCompare, renderReport, REPORT_FORMATS } from '../../src/report/index.js';
import { renderShare } from '../../src/report/share.js';
import { parseResultText } from '../../src/results/read.js';
import type { ServiceLevel } from '../../src/results/schema.js';

// A result without load levels (every version 1 file) renders byte for byte as it did before levels were
// reported: every format, under its own service level and under --slo, share, and compare of two such results.
// The digests were taken from the renderers before the levels' sections existed, but csv's and json's: those carry
// the answer under the report's level since `report --slo` applies to them (its columns, `answer`), retaken then with
// every other digest unchanged. UPDATE_GOLDEN=1 rewrites them after a deliberate change.
const FIXTURES = ['synthetic-full', 'seed-000_9816ff1652ee407d', 'demo-busy'];
const DIGESTS = fileURLToPath(new URL('./golden/v1-digests.json', import.meta.url));
const dir = join(import.meta.dirname, '../fixtures/results');
const read = (f: string) => parseResultText(readFileSync(join(dir, `${f}.json`), 'utf8'), f);
const digest = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);
const STRICT = parseServiceLevel('ttft=500ms') as ServiceLevel;

function renders(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of FIXTURES) {
    const r = read(f);
    for (const fmt of REPORT_FORMATS) {
      out[`${f}.${fmt}`] = digest(renderReport(r, fmt, { width: 80 }));
      out[`${f}.${fmt} --slo`] = digest(renderReport(r, fmt, { width: 80, slo: STRICT }));
    }
    out[`${f} share`] = digest(renderShare(r));
  }
  for (const pair of [
    ['seed-000_9816ff1652ee407d', 'seed-001_e957ef8128caa214'],
    ['demo-busy', 'demo-second'],
  ])
    for (const fmt of COMPARE_FORMATS) {
      const runs = pair.map(read);
      out[`compare ${pair.join(' ')} ${fmt}`] = digest(
        renderCompare(runs, fmt, { width: 80, verbose: true }),
      );
      out[`compare ${pair.join(' ')} ${fmt} --slo`] = digest(
        renderCompare(runs, fmt, { width: 80, verbose: true, slo: STRICT }),
      );
    }
  return out;
}

describe('results without load levels', () => {
  it('render exactly as before in every format, share included', () => {
    const actual = renders();
    if (process.env.UPDATE_GOLDEN) writeFileSync(DIGESTS, JSON.stringify(actual, null, 2) + '\n');
    expect(actual).toEqual(JSON.parse(readFileSync(DIGESTS, 'utf8')));
  });
});
