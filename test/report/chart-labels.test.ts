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

// Two demo runs' prefill lines a few percent apart (compare's overlay): labels piled up on the lines, and the
// upper of two labels belonged to the lower point. Each drawing (wide and narrow) is checked with the label box
// estimated as the chart does (7 units a character, 11 high) and every line sampled every half unit.
describe('chart point labels beside other lines', () => {
  const A = [32_463, 41_867, 44_732, 48_698, 43_617];
  const B = [27_013, 40_589, 44_577, 48_567, 44_344];
  const svg = lineChartSvg({
    series: [A, B].map((ys, si) => ({
      name: `run ${si}`,
      color: '#000',
      points: ys.map((y, x) => ({ x, y, label: `${(y / 1000).toFixed(1)}K`, tip: 't' })),
    })),
    xKind: 'category',
    categories: ['1K', '2K', '4K', '8K', '16K'],
    xLabel: 'x',
    yLabel: 'y',
    xFormat: String,
    yFormat: String,
    ariaLabel: 'chart',
    height: 320,
  });
  const drawings = svg.split('<svg class="chart"').slice(1);

  it('no label lies on a line, and each is nearer one point than any other', () => {
    expect(drawings.length).toBe(2);
    for (const d of drawings) {
      const dots = [...d.matchAll(/<circle cx="([\d.]+)" cy="([\d.]+)"/g)].map((m) => [
        Number(m[1]),
        Number(m[2]),
      ]);
      const line = [...d.matchAll(/<path d="([^"]+)"/g)].flatMap((m) => {
        const pts = [...m[1]!.matchAll(/[ML]([\d.]+),([\d.]+)/g)].map((p) => [Number(p[1]), Number(p[2])]);
        return pts.slice(1).flatMap(([x1, y1], i) => {
          const [x0, y0] = pts[i]!;
          const n = Math.ceil(Math.hypot(x1! - x0!, y1! - y0!) * 2);
          return Array.from({ length: n + 1 }, (_, k) => [
            x0! + ((x1! - x0!) * k) / n,
            y0! + ((y1! - y0!) * k) / n,
          ]);
        });
      });
      const ls = labels(d);
      expect(ls.length).toBeGreaterThan(0);
      for (const l of ls) {
        const box = { x0: l.x, x1: l.x + l.text.length * 7, y0: l.y - 9, y1: l.y + 2 };
        expect(
          line.filter(([x, y]) => x! > box.x0 && x! < box.x1 && y! > box.y0 && y! < box.y1),
          l.text,
        ).toEqual([]);
        const dist = dots
          .map(([x, y]) =>
            Math.hypot(Math.max(box.x0 - x!, 0, x! - box.x1), Math.max(box.y0 - y!, 0, y! - box.y1)),
          )
          .sort((p, q) => p - q);
        expect(dist[1]! - dist[0]!, l.text).toBeGreaterThanOrEqual(3);
      }
    }
  });
});
