import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import { HOSTILE, syntheticResult } from './synthetic.js';
import { SEEDS, seedMeasurementLines, seedResult, seedText } from './seeds.js';

describe('Markdown report', () => {
  for (const seed of SEEDS) {
    it(`${seed.name}: every "All measurements" row of the seed appears exactly as printed (golden)`, () => {
      const md = renderReport(seedResult(seed.id), 'md');
      const lines = new Set(md.split('\n'));
      const seedLines = seedMeasurementLines(seed.id);
      expect(seedLines.length).toBe(73);
      for (const line of seedLines) expect(lines.has(line), line).toBe(true);
      // Same order as the seed, too.
      const ours = md.split('\n').filter((l) => /^\| (Prefill|Sustained decode) \|/.test(l));
      expect(ours).toEqual(seedLines);
    });

    it(`${seed.name}: the seed's sections are there`, () => {
      const md = renderReport(seedResult(seed.id), 'md');
      for (const h of [
        'Hardware',
        'Engine',
        'Run',
        'Launch command',
        'Prefill',
        'Sustained decode matrix',
        'All measurements',
      ])
        expect(md).toContain(`### ${h}\n`);
      expect(md).toContain(`## ${seedText(seed.id).split('\n')[1]}`);
      expect(md).toContain('| **8K** | **');
      expect(md).toContain('*Over capacity*');
    });
  }

  it('H200: the decode matrix cell shows total tok/s, TTFT and the queued status', () => {
    const md = renderReport(seedResult(SEEDS[1].id), 'md');
    expect(md).toContain('**2,793.5**<br>11,897 ms TTFT ⚠<br>⚠ Requests queued');
    expect(md).toContain('**1,583.7**<br>1,236 ms TTFT<br>⚠ Requests queued');
    expect(md).toMatch(/Prefill at 64K ran at 4,764\.0 tok\/s/);
  });

  it('escapes strings from the result', () => {
    const md = renderReport(syntheticResult(), 'md');
    expect(md).not.toContain(HOSTILE);
    expect(md).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // The launch command is fenced with a fence longer than any backtick run inside it.
    expect(md).toContain('```sh\nsim --api-key <redacted> --note "a|b" `tick`\n```');
  });
});
