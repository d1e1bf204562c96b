import { describe, expect, it } from 'vitest';
import { cellRatio, compareModel } from '../../src/report/compare-model.js';
import { renderCompare } from '../../src/report/index.js';
import { stripAnsi } from '../../src/report/text.js';
import { syntheticResult } from './synthetic.js';
import { SEEDS, seedResult } from './seeds.js';

const rtx = () => seedResult(SEEDS[0].id);
const h200 = () => seedResult(SEEDS[1].id);

/** Rows of the Markdown table that follows a heading. */
function mdTableAfter(md: string, heading: string): string[][] {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => l.startsWith(heading));
  const rows: string[][] = [];
  for (let i = start + 1; i < lines.length; i++) {
    const l = lines[i]!;
    if (!l.startsWith('|')) {
      if (rows.length) break;
      continue;
    }
    rows.push(l.split(' | ').map((c) => c.replace(/^\| ?| ?\|$/g, '')));
  }
  return rows;
}

describe('compare', () => {
  it('shows the H200/RTX ratio for every cell both have (Markdown)', () => {
    const a = rtx();
    const b = h200();
    const md = renderCompare([a, b], 'md');
    const table = mdTableAfter(md, '## Total tok/s ratio B/A');
    const header = table[0]!.slice(1).map(Number);
    // A cell both seeds measured (Valid or Requests queued, with a total): B's total over A's, two decimals.
    const measured = (c: (typeof a.decode)[number] | undefined) =>
      c && (c.status === 'Valid' || c.status === 'Requests queued') && (c.totalTokensPerS ?? 0) > 0
        ? c
        : undefined;
    let checked = 0;
    for (const row of table.slice(2)) {
      const ctxLabel = row[0]!.replace(/\*/g, '');
      row.slice(1).forEach((text, j) => {
        const n = header[j]!;
        const find = (r: typeof a) =>
          measured(
            r.decode.find(
              (c) => `${Math.round(c.contextTokens / 1024)}K` === ctxLabel && c.concurrency === n,
            ),
          );
        const ca = find(a);
        const cb = find(b);
        if (!ca || !cb) {
          expect(text, `${ctxLabel} × ${n}`).not.toMatch(/×/);
          return;
        }
        const ratio = cb.totalTokensPerS! / ca.totalTokensPerS!;
        expect(cellRatio(ca, cb)).toBeCloseTo(ratio, 10);
        expect(text, `${ctxLabel} × ${n}`).toContain(`**${(Math.round(ratio * 100) / 100).toFixed(2)}×**`);
        checked++;
      });
    }
    // The two seeds share 42 measured cells.
    expect(checked).toBe(42);
    expect(md).toContain('**1.63×**<br>108.1 → 175.8');
    expect(md).toContain('| B over cap. |');
  });

  it('text and HTML carry the same ratios', () => {
    const txt = stripAnsi(renderCompare([rtx(), h200()], 'txt', { width: 80 }));
    for (const line of txt.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(txt).toContain('1.63×');
    expect(txt).toContain('0.64×');
    const html = renderCompare([rtx(), h200()], 'html');
    const cells = [
      ...html.matchAll(
        /data-ratio-cell data-context="(\d+)" data-concurrency="(\d+)"[^>]*data-ratio="([\d.]+)"/g,
      ),
    ];
    expect(cells).toHaveLength(42);
    const a = rtx();
    const b = h200();
    for (const [, ctx, n, ratio] of cells) {
      const ca = a.decode.find((c) => c.contextTokens === Number(ctx) && c.concurrency === Number(n));
      const cb = b.decode.find((c) => c.contextTokens === Number(ctx) && c.concurrency === Number(n));
      expect(Number(ratio)).toBeCloseTo(cellRatio(ca, cb)!, 3);
    }
  });

  it('lists metadata differences', () => {
    const m = compareModel([rtx(), h200()]);
    const fields = m.metaDiffs.map((d) => d.field);
    expect(fields).toContain('Hardware · GPU');
    expect(fields).toContain('Run · Served model');
    expect(fields).not.toContain('Engine · Engine');
    expect(m.metaDiffs.find((d) => d.field === 'Hardware · GPU count')!.values).toEqual(['8', '4']);
  });

  it('handles runs with different cell sets', () => {
    const a = syntheticResult();
    const b = syntheticResult();
    b.decode = b.decode
      .filter((c) => c.contextTokens !== 4096)
      .map((c) => ({ ...c, totalTokensPerS: c.totalTokensPerS && c.totalTokensPerS * 2 }));
    b.decode.push({ ...b.decode[0]!, contextTokens: 65536, concurrency: 1 });
    const md = renderCompare([a, b], 'md');
    const table = mdTableAfter(md, '## Total tok/s ratio B/A');
    const row = (label: string) => table.find((r) => r[0] === `**${label}**`)!;
    expect(row('4K').slice(1, 5)).toEqual(['only A', 'only A', 'only A', 'only A']);
    expect(row('64K')[1]).toBe('only B');
    expect(row('8K')[1]).toContain('**2.00×**');
    expect(row('8K')[4]).toBe('A failed');
    expect(row('16K')[3]).toBe('over cap.');
    const txt = renderCompare([a, b, a], 'txt');
    expect(txt).toContain('Total tok/s ratio C/A');
  });
});

// compare's text cut the H200 seed's launch command inside a name ("num_specu" / "lative_tokens") and put a flag
// at a line's end with its value on the next: a launch command breaks between words, a flag beside its value.
describe('compare text: launch commands', () => {
  it('break between words, a flag on the line of its value', () => {
    const [a, b] = [rtx(), h200()];
    const txt = stripAnsi(renderCompare([a, b], 'txt', { width: 80 }));
    const block = txt.slice(txt.indexOf('  Launch command\n'), txt.indexOf('\nVerdicts'));
    const lines = block.split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
    for (const cmd of [a.launchCommand!, b.launchCommand!])
      for (const name of cmd.match(/[\w.-]+/g)!) expect(lines.some((l) => l.includes(name))).toBe(true);
    for (const pair of ['--max-model-len 1048576', '--tool-call-parser glm47', '--port 8000'])
      expect(lines.filter((l) => l.includes(pair))).toHaveLength(2);
  });
});

// compare of two servers of different models said nothing of it: the ratios read as the server's speed.
describe('compare: runs that are not like for like', () => {
  const line = (a: ReturnType<typeof rtx>, b: ReturnType<typeof rtx>) =>
    stripAnsi(renderCompare([a, b], 'txt', { width: 80 }))
      .replace(/\n {2}(?=\S)/g, ' ') // the line wrapped to 80 columns, read as one
      .split('\n')
      .filter((l) => l.includes('Not like for like'));

  it('says once, in every format, that B served another model (and on other GPUs)', () => {
    const [a, b] = [rtx(), h200()];
    const expected =
      `Not like for like: B served another model (${b.target.model}; A: ${a.target.model}), on other GPUs ` +
      `(${b.hardware.gpuName}; A: ${a.hardware.gpuName}); every B/A ratio includes the change of model and GPUs.`;
    expect(a.engine.name).toBe(b.engine.name); // both vLLM: the engine is not named
    expect(line(a, b)).toEqual([`! ${expected}`]);
    const md = renderCompare([a, b], 'md').split('\n');
    expect(md.filter((l) => l.includes('Not like for like'))).toHaveLength(1);
    expect(md.find((l) => l.includes('Not like for like'))).toMatch(
      /^> ⚠ Not like for like: B served another model /,
    );
    const html = renderCompare([a, b], 'html');
    expect(html.match(/Not like for like/g)).toHaveLength(1);
    const li = html.match(/<li class="sev-warn">(Not like for like:.*?)<\/li>/)![1]!.replace(/<[^>]+>/g, '');
    expect(li).toBe(expected); // identifiers kept whole on a line (escText's spans), the text as in the terminal
  });

  it('says nothing for a rerun, a served-name alias, or one change at a time', () => {
    const a = h200();
    expect(line(a, h200())).toEqual([]);
    const alias = h200();
    alias.target.model = `someorg/${a.target.model.toUpperCase()}`;
    expect(line(a, alias)).toEqual([]);
    const engine = h200();
    engine.engine.name = 'sglang';
    expect(line(a, engine)).toEqual([]);
    const gpu = h200();
    gpu.hardware.gpuName = 'B200';
    expect(line(a, gpu)).toEqual([]);
    const both = structuredClone(engine);
    both.hardware.gpuName = 'B200';
    expect(line(a, both)).toEqual([
      `! Not like for like: B with another engine (sglang; A: ${a.engine.name}), on other GPUs (B200; A: ${a.hardware.gpuName}); every B/A ratio includes the change of engine and GPUs.`,
    ]);
  });
});
