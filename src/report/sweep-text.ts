import { cellName, contextLabel, DASH, fmtDate, fmtTokS } from '../format/index.js';
import * as sweep from './sweep-model.js';
import type { SweepModel } from './sweep-model.js';
import { makePaint, wrap, type Paint, type TextOptions } from './text.js';
import { cellKey } from '../cell-rules.js';

// The sweep report in a terminal: readable at 80 columns (configurations in groups that fit side by side).

const COL = 9; // one configuration's column
const N_COL = 5; // the concurrency column
const BEST_COL = 13;

function configLines(m: SweepModel, width: number, paint: Paint): string[] {
  const out: string[] = [];
  for (const c of m.configs) {
    const cells = c.result ? `${c.result.decode.length} cells` : 'no result';
    const head = `${c.letter}  ${c.label}  ${paint(sweep.STATUS_WORD[c.status] ?? c.status, c.status === 'failed' ? 'red' : 'dim')} (${cells})`;
    out.push(...wrap(head, width - 2, '     ').map((l) => `  ${l}`));
    if (c.reason) out.push(...wrap(c.reason, width - 7, '').map((l) => `     ${l}`));
    if (c.logTail?.length) {
      out.push(paint(`     last lines of ${c.log ?? 'the server log'}:`, 'dim'));
      for (const l of c.logTail.slice(-5)) out.push(paint(`     | ${l}`.slice(0, width), 'dim'));
    }
  }
  return out;
}

function matrixLines(m: SweepModel, width: number, paint: Paint): string[] {
  const out: string[] = [];
  const perTable = Math.max(1, Math.floor((width - N_COL - BEST_COL - 2) / COL));
  const measured = m.configs.map((c, i) => i).filter((i) => m.configs[i]!.result);
  for (const ctx of m.contexts) {
    for (let g = 0; g < measured.length; g += perTable) {
      const group = measured.slice(g, g + perTable);
      const part =
        measured.length > perTable ? ` (${g / perTable + 1}/${Math.ceil(measured.length / perTable)})` : '';
      out.push('', paint(`Total tok/s · ${contextLabel(ctx)} context${part}`, 'bold'));
      out.push(
        paint(
          ['N'.padStart(N_COL - 1), ...group.map((i) => m.configs[i]!.letter.padStart(COL)), '  best'].join(
            '',
          ),
          'bold',
        ),
      );
      for (const n of m.concurrency) {
        const v = m.cells.find((x) => x.contextTokens === ctx && x.concurrency === n);
        const vals = group.map((i) => {
          const cell = m.configs[i]!.cells.get(cellKey(ctx, n));
          if (!cell) return DASH.padStart(COL);
          if (cell.status === 'Over capacity') return 'over'.padStart(COL);
          if (cell.status === 'Failed') return 'failed'.padStart(COL);
          const q = cell.status === 'Requests queued' ? 'Q' : ' ';
          const text = `${fmtTokS(cell.totalTokensPerS)}${q}`.padStart(COL);
          return sweep.isBestOf(v, i) ? paint(text, 'green') : text;
        });
        const best = v ? `  ${sweep.bestShort(m, v)}` : '';
        out.push([String(n).padStart(N_COL - 1), ...vals, best].join(''));
      }
      // "users" takes the concurrency column and one space of the first configuration's
      const users = group.map((i) => `${sweep.usersShort(m, ctx, i) ?? DASH} `.padStart(COL));
      out.push(paint(`users${users.join('').slice(1)}`, 'dim'));
    }
  }
  return out;
}

function paretoLines(m: SweepModel, width: number, paint: Paint): string[] {
  const frontier = m.pareto.filter((p) => p.frontier).sort((a, b) => a.x - b.x);
  if (frontier.length === 0) return [];
  const xHead = m.perGpu ? 'total/GPU' : 'total tok/s';
  const out = [
    '',
    paint('Pareto frontier · per-request tok/s against total tok/s', 'bold'),
    ...wrap(sweep.paretoIntro(m), width - 2, '').map((l) => paint(`  ${l}`, 'dim')),
    paint(`  ${'per request'.padStart(11)}  ${xHead.padStart(11)}  cell         configuration`, 'bold'),
  ];
  for (const p of frontier) {
    const row = `  ${fmtTokS(p.y).padStart(11)}  ${fmtTokS(p.x).padStart(11)}  ${(cellName(p) + (p.queued ? ' Q' : '')).padEnd(11)}  ${m.configs[p.config]!.letter} ${sweep.configName(m, p.config)}`;
    out.push(row.length > width ? row.slice(0, width - 1) + '…' : row);
  }
  return out;
}

// The words, as the report and the end of a sweep print them: the service level, then a line per context.
export function wordsLines(m: SweepModel, width: number): string[] {
  return [sweep.serviceLevelText(m), ...m.contextLines].flatMap((l) =>
    wrap(l, width - 2, '  ').map((x) => `  ${x}`),
  );
}

export function renderSweepText(m: SweepModel, opts: TextOptions = {}): string {
  const width = Math.max(60, opts.width ?? 80);
  const paint = makePaint(opts.color);
  const ok = m.configs.filter((c) => c.status === 'complete').length;
  const out: string[] = [
    paint(m.title, 'bold'),
    ...wrap(
      `${m.configs.length} configurations, ${ok} complete · ${m.file.status} · started ${fmtDate(m.file.startedAt)}`,
      width,
      '',
    ),
    ...wrap(`server: ${m.file.serveCmd}`, width, '  ').map((l) => paint(l, 'dim')),
    '',
    paint('Configurations', 'bold'),
    ...configLines(m, width, paint),
  ];
  if (m.contextLines.length) out.push('', paint('In words', 'bold'), ...wordsLines(m, width));
  if (m.cells.length) {
    out.push(...matrixLines(m, width, paint));
    const legend =
      'users: how many at once each serves under the service level (+: every level measured met it). best: the ' +
      "fastest configuration and its margin over the runner-up (± the 95% interval), faster beyond noise by compare's " +
      'test (99%, at least 2%); ≈: no significant difference; Q: requests queued, worse at that level than one that ' +
      'ran them all at once (B, A Q: A queued, B did not); over: Over capacity.';
    out.push(...wrap(legend, width - 2, '  ').map((l) => paint(`  ${l}`, 'dim')));
    out.push(...paretoLines(m, width, paint));
  }
  return out.join('\n') + '\n';
}
