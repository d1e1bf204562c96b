import type { CellStatus, RunResult } from '../results/schema.js';
import { prefillEvidence } from './prefill-evidence.js';
import { findAnomalies, prefillOutlierContexts } from './anomalies.js';
import { wrapCommand } from './wrap-command.js';
import { measurementLines } from './text-measurements.js';
import { contextLabel, DASH, fmtMs, fmtMsCompact, fmtTokS, fmtTokSChart, wrap } from '../format/index.js';
import type { ServiceLevel } from '../results/schema.js';
import { answerTextLines } from './answer-view.js';
import { givenAnalysis, type Analysis } from '../answer/analysis.js';
import type { AnswerOptions } from './index.js';
import { levelTextLines } from './levels-text.js';
import {
  cellMap,
  decodeConcurrency,
  decodeContexts,
  metadata,
  prefillPoints,
  reportTitle,
  statusNotes,
  subtitle,
  TTFT_NOTE,
} from './model.js';
import { cellKey } from '../cell-rules.js';
import { keysOf } from '../option-keys.js';

// Terminal report: readable at 80 columns; colour only when the caller says so (CLI decides from TTY/env).
export interface TextOptions {
  color?: boolean;
  width?: number;
  slo?: ServiceLevel; // the answer's service level (default: the result's, else chat)
  verbose?: boolean; // compare: every verdict, not only the counts and the worst five
}
// The keys renderReport and renderCompare take (a report's options are these: AnswerOptions is a part of them).
export const TEXT_OPTION_KEYS = keysOf<TextOptions>({
  color: true,
  width: true,
  slo: true,
  verbose: true,
});

const CODES = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  yellow: [33, 39],
  green: [32, 39],
  cyan: [36, 39],
};
export type Style = keyof typeof CODES;

export function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;]*m/g, '');
}

export { wrap }; // from src/format/wrap.ts: its importers here keep their path

const pad = (s: string, w: number, right = true) => (right ? s.padStart(w) : s.padEnd(w));

// --width below this still gets a report of that width; tables drop columns rather than overflow.
export const MIN_WIDTH = 40;

const CELL_W = 8;
const CTX_W = 6;

function statusStyle(s: CellStatus): Style | undefined {
  return s === 'Failed'
    ? 'red'
    : s === 'Requests queued'
      ? 'yellow'
      : s === 'Over capacity'
        ? 'dim'
        : undefined;
}

export function renderText(r: RunResult, opts: TextOptions & AnswerOptions = {}): string {
  const a = givenAnalysis(r, opts);
  const width = Math.max(MIN_WIDTH, opts.width ?? 80);
  const paint = makePaint(opts.color);
  const anomalies = findAnomalies(r);
  const all = measurementLines(r, width);
  const heading = (s: string) => ['', paint(s, 'bold')];
  const dimWrapped = (l: string) => wrap(l, width - 2, '  ').map((x) => paint(`  ${x}`, 'dim'));
  const out: string[] = [
    ...wrap(`Speed test matrix · ${reportTitle(r)}`, width, '  ').map((l) => paint(l, 'bold')),
    ...wrap(subtitle(r), width, '  '),
    // The answer comes first: what most readers came for (docs/report.md "The answer").
    '',
    ...answerTextLines(a, width, paint, wrap, a.whatIf),
    ...metadataLines(r, width, paint, heading),
  ];
  if (r.launchCommand)
    out.push(
      ...heading('Launch command'),
      ...wrapCommand(r.launchCommand, width - 2, '    ').map((l) => `  ${l}`),
    );
  const pre = prefillPoints(r);
  if (pre.length)
    out.push(
      ...heading('Prefill · prompt tok/s by context length'),
      ...prefillLines(pre, anomalies, width, paint),
    );
  if (r.decode.length) {
    out.push(...heading('Sustained decode · total tok/s and TTFT'));
    out.push(...dimWrapped('rows: context length · columns: simultaneous requests'));
    out.push(...decodeMatrixLines(r, width, paint));
    out.push('');
    const legend = ['Top: total tok/s; below: median TTFT.'];
    if (r.decode.some((c) => c.status === 'Requests queued')) legend.push('Q = Requests queued.');
    if (r.decode.some((c) => c.streamBatching?.batched))
      legend.push("! = TTFT not the server's: the stream was held back on the way (see Anomalies).");
    for (const l of [legend.join(' '), ...statusNotes(r.decode.map((c) => c.status)), TTFT_NOTE])
      out.push(...dimWrapped(l));
  }
  out.push(...levelTextLines(r, a.slo, width, paint));
  if (anomalies.length) out.push(...heading('Anomalies'), ...anomalyLines(anomalies, width, paint));
  if (all.lines.length > 1) {
    out.push(...heading('All measurements'));
    out.push(all.lines[0]!.length ? paint(all.lines[0]!, 'dim') : '', ...all.lines.slice(1));
    for (const n of all.notes) out.push(...dimWrapped(n));
  }
  return out.join('\n') + '\n';
}

/** The answer alone, as `run` prints it at the end of a run. */
export function renderAnswerText(a: Analysis, opts: Pick<TextOptions, 'width' | 'color'> = {}): string {
  const width = Math.max(MIN_WIDTH, opts.width ?? 80);
  return answerTextLines(a, width, makePaint(opts.color), wrap, a.whatIf).join('\n') + '\n';
}

function metadataLines(
  r: RunResult,
  width: number,
  paint: Paint,
  heading: (s: string) => string[],
): string[] {
  const labelW = 24;
  const out: string[] = [];
  for (const s of metadata(r)) {
    if (!s.rows.length) continue;
    out.push(...heading(s.name));
    for (const [k, v] of s.rows) {
      const lines = wrap(v, width - labelW - 2, ' '.repeat(labelW + 2));
      out.push(`  ${paint(pad(k, labelW - 2, false), 'dim')}${lines[0] ?? ''}`, ...lines.slice(1));
    }
  }
  return out;
}

/** One line per prefill point: context, tok/s, TTFT, a bar scaled to the fastest, and its note. */
function prefillLines(
  pre: ReturnType<typeof prefillPoints>,
  anomalies: ReturnType<typeof findAnomalies>,
  width: number,
  paint: Paint,
): string[] {
  const flagged = prefillOutlierContexts(anomalies);
  const max = Math.max(1, ...pre.map((p) => p.tokensPerS ?? 0));
  // The note column widens for evidence (cached tokens, a shortened prompt); at narrow widths the bar goes
  // first: figures and notes must fit.
  const noteW = Math.max(
    10,
    ...pre.map((p) => (prefillEvidence(p, true) ? prefillEvidence(p, true).length + 12 : 0)),
  );
  const barW = Math.max(0, width - 2 - 6 - 9 - 11 - 4 - noteW);
  return pre.map((p) => {
    const bar = barW
      ? '█'.repeat(Math.max(p.tokensPerS ? 1 : 0, Math.round(((p.tokensPerS ?? 0) / max) * barW)))
      : '';
    const note = p.status !== 'Valid' ? p.status : flagged.has(p.contextTokens) ? '⚠ outlier' : '';
    const evidence = prefillEvidence(p, true);
    return (
      `  ${pad(contextLabel(p.contextTokens), 6, false)}${pad(fmtTokSChart(p.tokensPerS), 9)}` +
      `${pad(fmtMs(p.ttftMs), 11)}${barW ? `  ${paint(note || evidence ? pad(bar, barW, false) : bar, flagged.has(p.contextTokens) ? 'yellow' : 'cyan')}` : ''}` +
      `  ${paint(note, note ? 'yellow' : undefined)}${evidence ? paint(`${note ? '; ' : ''}${evidence}`, 'dim') : ''}`
    ).trimEnd();
  });
}

function anomalyLines(anomalies: ReturnType<typeof findAnomalies>, width: number, paint: Paint): string[] {
  const mark = { error: paint('✗', 'red'), warn: paint('!', 'yellow'), info: paint('i', 'cyan') } as const;
  return anomalies.flatMap((a) => {
    const lines = wrap(a.text, width - 4, '    ');
    return [`  ${mark[a.severity]} ${lines[0]}`, ...lines.slice(1)];
  });
}

export type Paint = (s: string, style?: Style) => string;

/** The decode matrix in blocks of columns that fit the width: total tok/s over TTFT per cell. */
export function decodeMatrixLines(
  r: RunResult,
  width: number,
  paint: Paint,
  grid?: {
    contexts: number[];
    concurrency: number[];
    cell: (contextTokens: number, concurrency: number) => [string, string, Style | undefined];
  },
): string[] {
  const out: string[] = [];
  const ctx = grid?.contexts ?? decodeContexts(r);
  const conc = grid?.concurrency ?? decodeConcurrency(r);
  const map = cellMap(r);
  // Slow TTFTs (ttft-outlier) and those a proxy held (held-stream) are painted yellow so the eye finds them.
  const slow = new Set(
    findAnomalies(r)
      .filter((a) => a.kind === 'ttft-outlier' || a.kind === 'held-stream')
      .map((a) => cellKey(a.contextTokens!, a.concurrency!)),
  );
  const perBlock = Math.max(1, Math.floor((width - CTX_W) / (CELL_W + 1)));
  for (let b = 0; b < conc.length; b += perBlock) {
    const cols = conc.slice(b, b + perBlock);
    out.push('');
    out.push(
      paint(pad('ctx', CTX_W, false) + cols.map((n) => ' ' + pad(String(n), CELL_W)).join(''), 'bold'),
    );
    for (const c of ctx) {
      const top: string[] = [];
      const bottom: string[] = [];
      for (const n of cols) {
        const cell = map.get(cellKey(c, n));
        const custom = grid?.cell(c, n);
        if (custom) {
          top.push(' ' + paint(pad(custom[0], CELL_W), custom[2]));
          bottom.push(' ' + paint(pad(custom[1], CELL_W), 'dim'));
          continue;
        }
        let a = DASH;
        let z = '';
        if (cell?.status === 'Over capacity') [a, z] = ['over', 'capacity'];
        else if (cell?.status === 'Failed') [a, z] = ['FAILED', ''];
        else if (cell) {
          a = fmtTokS(cell.totalTokensPerS) + (cell.status === 'Requests queued' ? 'Q' : '');
          z = fmtMsCompact(cell.ttftMs) + (cell.streamBatching?.batched ? '!' : '');
        }
        const style = cell ? statusStyle(cell.status) : 'dim';
        top.push(' ' + paint(pad(a, CELL_W), style));
        const zStyle =
          slow.has(cellKey(c, n)) || style === 'yellow' ? 'yellow' : style === 'red' ? 'red' : 'dim';
        bottom.push(' ' + paint(pad(z, CELL_W), zStyle));
      }
      out.push(paint(pad(contextLabel(c), CTX_W, false), 'bold') + top.join(''));
      // A row with no TTFT anywhere (not run, failed) is one line, not a line of blanks.
      const below = ' '.repeat(CTX_W) + bottom.join('');
      if (stripAnsi(below).trim()) out.push(below);
    }
  }
  return out;
}

export function makePaint(color: boolean | undefined): Paint {
  return (s, style) => {
    if (!color || !style) return s;
    const [on, off] = CODES[style];
    return `\x1b[${on}m${s}\x1b[${off}m`;
  };
}
