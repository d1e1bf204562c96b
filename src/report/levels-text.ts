import { DASH, fmtTokenMs, fmtTokS, wrap } from '../format/index.js';
import type { RunResult, ServiceLevel } from '../results/schema.js';
import { shortStatus } from '../cell-rules.js';
import {
  cacheText,
  fmtRate,
  levelNote,
  levelRowsView,
  msFigure,
  searchText,
  secondsFigure,
  tokenMsFigure,
  type LevelRowView,
  type LevelView,
} from './levels-model.js';
import type { TextPaint } from './answer-view.js';

// The load levels in a terminal (docs/workloads.md "Reports"): per row three narrow tables (rates and the verdict,
// latency percentiles, output, prefix cache, client lag and status), each within the width; below them why a level
// is not Valid and the rate search's steps. A width too small for a table lists each level's figures as words.

export const LEVELS_TITLE = 'Load levels · requests per second under the service level';

type Style = Parameters<TextPaint>[1];
interface Col {
  head: string;
  group?: string; // a heading over several columns (their unit)
  left?: boolean;
  get: (v: LevelView) => string;
  word?: (text: string) => string; // the figure in words, where the table does not fit
  style?: (v: LevelView) => Style;
}

const n1 = tokenMsFigure;
const ms0 = msFigure;
const s1 = secondsFigure;
const pct = (v: number) => `${Math.round(v * 100)}%`;

const VERDICT_STYLE: Record<string, Style> = {
  meets: 'green',
  fails: 'red',
  'too close to call': 'yellow',
  'not judged': 'dim',
};
const STATUS_STYLE: Record<string, Style> = {
  'Requests queued': 'yellow',
  Failed: 'red',
  'Client-bound': 'yellow',
};

const TABLES: Col[][] = [
  [
    {
      head: 'offered',
      group: 'req/s',
      get: (v) => fmtRate(v.level.offeredRate),
      word: (t) => `offered ${t} req/s`,
    },
    {
      head: 'achieved',
      group: 'req/s',
      get: (v) => fmtRate(v.level.achievedRate),
      word: (t) => `achieved ${t}`,
    },
    { head: 'goodput', group: 'req/s', get: (v) => fmtRate(v.goodput), word: (t) => `goodput ${t}` },
    {
      head: 'met it',
      get: (v) => {
        const s = v.judgement.share;
        return s?.basis === 'requests' && s.share !== null ? pct(s.share) : s ? 'median' : DASH;
      },
    },
    {
      head: '95%',
      word: (t) => `(${t})`,
      get: (v) => {
        const i = v.judgement.share?.interval;
        return i ? `${Math.round(i.lo * 100)}–${pct(i.hi)}` : DASH;
      },
    },
    {
      head: 'verdict',
      left: true,
      get: (v) => v.verdict,
      word: (t) => t,
      style: (v) => VERDICT_STYLE[v.verdict],
    },
  ],
  [
    { head: 'p50', group: 'TTFT, ms', get: (v) => ms0(v.level.ttftMs.p50), word: (t) => `TTFT p50 ${t}` },
    { head: 'p90', group: 'TTFT, ms', get: (v) => ms0(v.level.ttftMs.p90) },
    { head: 'p99', group: 'TTFT, ms', get: (v) => ms0(v.level.ttftMs.p99), word: (t) => `p99 ${t} ms` },
    { head: 'p50', group: 'ITL, ms', get: (v) => n1(v.level.itlMs.p50), word: (t) => `ITL p50 ${t}` },
    { head: 'p99', group: 'ITL, ms', get: (v) => n1(v.level.itlMs.p99), word: (t) => `p99 ${t} ms` },
    { head: 'p50', group: 'E2E, s', get: (v) => s1(v.level.e2eMs.p50), word: (t) => `E2E p50 ${t}` },
    { head: 'p99', group: 'E2E, s', get: (v) => s1(v.level.e2eMs.p99), word: (t) => `p99 ${t} s` },
  ],
  [
    { head: 'out tok/s', get: (v) => fmtTokS(v.level.totalTokensPerS) },
    { head: 'prefix cache served', left: true, get: (v) => cacheText(v.level) },
    { head: 'lag p99', get: (v) => fmtTokenMs(v.level.lag.p99Ms) },
    {
      head: 'status',
      left: true,
      get: (v) => shortStatus(v.level.status),
      style: (v) => STATUS_STYLE[v.level.status],
    },
  ],
];

const GAP = 2;
const INDENT = '  ';

function tableLines(
  views: readonly LevelView[],
  cols: readonly Col[],
  width: number,
  paint: TextPaint,
): string[] {
  const loadW = Math.max(4, ...views.map((v) => v.load.length));
  const cells = views.map((v) => cols.map((c) => c.get(v)));
  const widths = cols.map((c, i) => Math.max(c.head.length, ...cells.map((r) => r[i]!.length)));
  const total = INDENT.length + loadW + widths.reduce((a, w) => a + GAP + w, 0);
  if (total > width) return wordLines(views, cols, width);
  const align = (s: string, i: number) => (cols[i]!.left ? s.padEnd(widths[i]!) : s.padStart(widths[i]!));
  const out: string[] = [];
  // A unit heading over the columns it covers, centred on them.
  if (cols.some((c) => c.group)) {
    let line = INDENT + ' '.repeat(loadW);
    for (let i = 0; i < cols.length;) {
      let j = i;
      let span = widths[i]!;
      while (j + 1 < cols.length && cols[j + 1]!.group === cols[i]!.group) span += GAP + widths[++j]!;
      const g = cols[i]!.group ?? '';
      line += ' '.repeat(GAP) + g.padStart(Math.floor((span + g.length) / 2)).padEnd(span);
      i = j + 1;
    }
    out.push(paint(line.trimEnd(), 'dim'));
  }
  out.push(
    paint(
      `${INDENT}${'load'.padEnd(loadW)}${cols.map((c, i) => ' '.repeat(GAP) + align(c.head, i)).join('')}`.trimEnd(),
      'dim',
    ),
  );
  views.forEach((v, r) => {
    // The last column unpadded, so a coloured line ends where the plain one does.
    const last = cols.length - 1;
    const row = cols
      .map(
        (c, i) =>
          ' '.repeat(GAP) +
          paint(i === last ? align(cells[r]![i]!, i).trimEnd() : align(cells[r]![i]!, i), c.style?.(v)),
      )
      .join('');
    out.push(`${INDENT}${paint(v.load.padEnd(loadW), 'bold')}${row}`.trimEnd());
  });
  return out;
}

// Too narrow for the table: each level's figures as "name value" words, wrapped.
function wordLines(views: readonly LevelView[], cols: readonly Col[], width: number): string[] {
  return views.flatMap((v) => {
    const words = cols
      .map((c) => (c.word ? c.word(c.get(v)) : `${c.head} ${c.get(v)}`))
      .reduce((a, w) => (a ? `${a}${w.startsWith('(') ? ' ' : ', '}${w}` : w), '');
    const [first, ...more] = wrap(`${v.load}: ${words}`, width - INDENT.length, '    ');
    return [`${INDENT}${first ?? ''}`, ...more.map((l) => `${INDENT}${l}`)];
  });
}

function rowLines(row: LevelRowView, slo: ServiceLevel, width: number, paint: TextPaint): string[] {
  const out: string[] = ['', paint(row.label, 'bold')];
  TABLES.forEach((cols, i) => {
    if (i) out.push('');
    out.push(...tableLines(row.levels, cols, width, paint));
  });
  const prose = (t: string, style?: Style) =>
    wrap(t, width - INDENT.length, '    ').map((l) => paint(`${INDENT}${l}`, style));
  const notes = row.levels.map(levelNote).filter((n): n is string => !!n);
  if (notes.length) out.push('', ...notes.flatMap((n) => prose(n)));
  if (row.search) out.push(...prose(searchText(row.search, slo), 'dim'));
  return out;
}

/** The levels section at a terminal width; empty for a result without load levels. */
export function levelTextLines(r: RunResult, slo: ServiceLevel, width: number, paint: TextPaint): string[] {
  const rows = levelRowsView(r, slo);
  if (!rows.length) return [];
  const out = ['', ...wrap(LEVELS_TITLE, width, '  ').map((l) => paint(l, 'bold'))];
  out.push(
    ...wrap(
      `Each level one window of arrivals, judged under the answer's service level. Goodput: arrivals that met it, per second of the window; prefix cache: prompt tokens the server served from cache of those the workload made cacheable.`,
      width - INDENT.length,
      INDENT,
    ).map((l, i) => paint(i ? l : `${INDENT}${l}`, 'dim')),
  );
  for (const row of rows) out.push(...rowLines(row, slo, width, paint));
  return out;
}
