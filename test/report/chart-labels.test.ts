import { describe, expect, it } from 'vitest';
import { lineChartSvg } from '../../src/report/html/line-chart.js';
import { renderReport } from '../../src/report/index.js';
import { SEEDS, seedResult } from './seeds.js';

interface Label {
  x: number;
  y: number;
  text: string;
}
const labels = (svg: string): Label[] =>
  [...svg.matchAll(/<text x="([\d.-]+)" y="([\d.-]+)" class="pl">([^<]*)<\/text>/g)].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
    text: m[3]!,
  }));

// Each <svg> (a chart comes in a wide and a narrow drawing) is checked on its own.
const clashes = (html: string): string[] => html.split('<svg').flatMap((svg) => clashesIn(labels(svg)));

function clashesIn(ls: Label[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < ls.length; i++)
    for (let j = i + 1; j < ls.length; j++) {
      const [a, b] = [ls[i]!, ls[j]!];
      const overlap =
        a.x < b.x + b.text.length * 6.5 && b.x < a.x + a.text.length * 6.5 && Math.abs(a.y - b.y) < 11;
      const repeat = a.text === b.text && Math.hypot(a.x - b.x, a.y - b.y) < 40;
      if (overlap || repeat) out.push(`${a.text}@${a.x},${a.y} ~ ${b.text}@${b.x},${b.y}`);
    }
  return out;
}

// Point labels in the throughput chart overlapped ("1 1 1").
describe('chart point labels', () => {
  it('never overlap or repeat the same text close by', () => {
    // Three contexts whose concurrency-1 points sit a few pixels apart, as on a flat throughput curve.
    const near = (dx: number) => ({ x: 100 * (1 + dx / 100), y: 100 + dx, tip: 't', label: '1' });
    const svg = lineChartSvg({
      series: [0, 1, 2].map((dx, i) => ({
        name: `s${i}`,
        color: '#000',
        points: [near(dx), { ...near(dx), x: 3000 * (1 + i / 10), y: 60 - 5 * i, label: '64' }],
      })),
      xKind: 'log',
      xLabel: 'x',
      yLabel: 'y',
      xFormat: String,
      yFormat: String,
      ariaLabel: 'chart',
    });
    expect(labels(svg).length).toBeGreaterThan(1);
    expect(clashes(svg)).toEqual([]);
  });

  for (const seed of SEEDS)
    it(`${seed.name}: the report's charts place no clashing labels`, () => {
      const html = renderReport(seedResult(seed.id), 'html');
      expect(labels(html).length).toBeGreaterThan(0);
      expect(clashes(html)).toEqual([]);
    });
});
