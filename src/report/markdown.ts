import type { RunResult } from '../results/schema.js';
import { givenAnalysis } from '../answer/analysis.js';
import { answerMd } from './answer-view.js';
import type { AnswerOptions } from './index.js';
import { prefillEvidence } from './prefill-evidence.js';
import { anomaliesByCell, findAnomalies, prefillOutlierContexts } from './anomalies.js';
import { flagLegends, flaggedFigures } from './flags.js';
import { contextLabel, DASH, fmtMs, fmtTokS } from '../format/index.js';
import {
  cellMap,
  decodeConcurrency,
  decodeContexts,
  MEASUREMENT_HEADERS,
  MEDIANS_NOTE,
  measurementRows,
  metadata,
  prefillPoints,
  reportTitle,
  singleUserNote,
  statusNotes,
  subtitle,
  TTFT_NOTE,
} from './model.js';
import { cellKey } from '../cell-rules.js';
import {
  LEVEL_COLUMNS,
  LEVEL_HEADERS,
  levelFigureTexts,
  levelNote,
  levelRowsView,
  searchText,
} from './levels-model.js';
import type { ServiceLevel } from '../results/schema.js';

// GitHub-flavoured Markdown: the seeds' sections and tables, strings from the result escaped.

/** Escapes text for a Markdown table cell or paragraph (no raw HTML, no broken tables). */
export function mdEscape(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/([*_`[\]#])/g, '\\$1')
    .replace(/\r?\n/g, ' ');
}

export function mdTable(headers: readonly string[], rows: string[][], align?: Array<'l' | 'r'>): string {
  const sep = headers.map((_, i) => (align?.[i] === 'r' ? '---:' : '---'));
  return [headers, sep, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** A fenced block whose fence is longer than any backtick run in the content. */
export function mdFence(content: string, lang = ''): string {
  const longest = Math.max(2, ...(content.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${content}\n${fence}`;
}

export function decodeMatrixMd(r: RunResult): string {
  const ctx = decodeContexts(r);
  const conc = decodeConcurrency(r);
  const map = cellMap(r);
  const flags = anomaliesByCell(findAnomalies(r));
  const rows = ctx.map((c) => [
    `**${contextLabel(c)}**`,
    ...conc.map((n) => {
      const cell = map.get(cellKey(c, n));
      if (!cell) return DASH;
      if (cell.status === 'Over capacity') return '*Over capacity*';
      if (cell.status === 'Failed') return '**Failed**';
      const flagged = (flags.get(cellKey(c, n)) ?? []).some(
        (a) => a.kind === 'ttft-outlier' || a.kind === 'held-stream',
      );
      const figs = `**${fmtTokS(cell.totalTokensPerS)}**<br>${fmtMs(cell.ttftMs)} TTFT${flagged ? ' ⚠' : ''}`;
      return cell.status === 'Requests queued' ? `${figs}<br>⚠ Requests queued` : figs;
    }),
  ]);
  return mdTable(['Context', ...conc.map(String)], rows, ['l', ...conc.map(() => 'r' as const)]);
}

export function renderMarkdown(r: RunResult, opts: AnswerOptions = {}): string {
  const out: string[] = [];
  out.push(`# Speed test matrix`, '', `## ${mdEscape(reportTitle(r))}`, '', mdEscape(subtitle(r)), '');
  const a = givenAnalysis(r, opts);
  out.push(...answerMd(a, a.whatIf));
  for (const s of metadata(r)) {
    if (!s.rows.length) continue;
    out.push(
      `### ${s.name}`,
      '',
      mdTable(
        ['', ''],
        s.rows.map(([k, v]) => [k, mdEscape(v)]),
      ),
      '',
    );
  }
  if (r.launchCommand) out.push('### Launch command', '', mdFence(r.launchCommand, 'sh'), '');
  const pre = prefillPoints(r);
  const anomalies = findAnomalies(r);
  if (pre.length)
    out.push(
      '### Prefill',
      '',
      'Prompt tok/s by context length (cold prompt, first token only).',
      '',
      prefillTableMd(pre, anomalies),
      '',
    );
  if (r.decode.length) out.push(...decodeSectionMd(r, anomalies));
  out.push(...levelsMd(r, a.slo));
  if (anomalies.length) {
    out.push('### Anomalies', '');
    const icon = { error: '❌', warn: '⚠️', info: 'ℹ️' } as const;
    out.push(...anomalies.map((a) => `- ${icon[a.severity]} ${mdEscape(a.text)}`), '');
  }
  // Rows stay as v0.6.2 printed them (docs/report.md), but for figures that are not the server's at all.
  const held = anomalies.filter((a) => a.kind === 'held-stream');
  const flagged = flaggedFigures(held);
  out.push('### All measurements', '', MEDIANS_NOTE, '');
  out.push(
    mdTable(
      MEASUREMENT_HEADERS,
      measurementRows(r).map((row) => {
        const key = row.slice(0, 3).join('|');
        return row.map((v, i) => mdEscape(flagged.has(`${key}|${i}`) ? `${v} ⚠` : v));
      }),
    ),
    '',
    ...flagLegends(held).flatMap((l) => [`*${mdEscape(l)}*`, '']),
  );
  const notes = [
    ...statusNotes([...r.decode.map((c) => c.status), ...r.prefill.map((p) => p.status)]),
    ...singleUserNote(r),
  ];
  if (notes.length) out.push(notes.join(' '), '');
  return out.join('\n');
}

// The load levels (docs/workloads.md "Reports"): per row a table of its levels, then each level's status in words
// where it is not Valid and the rate search's steps.
function levelsMd(r: RunResult, slo: ServiceLevel): string[] {
  const rows = levelRowsView(r, slo);
  if (!rows.length) return [];
  const out = [
    '### Load levels',
    '',
    "Each level one window of arrivals, judged under the answer's service level. Goodput: arrivals that met it, per second of the window; prefix cache: prompt tokens the server served from cache of those the workload made cacheable.",
    '',
  ];
  for (const row of rows) {
    out.push(
      `#### ${mdEscape(row.label)}`,
      '',
      mdTable(
        LEVEL_COLUMNS.map((c) => LEVEL_HEADERS[c]),
        row.levels.map((v) => {
          const t = levelFigureTexts(v);
          return LEVEL_COLUMNS.map((c) => (c === 'load' ? `**${mdEscape(t[c])}**` : mdEscape(t[c])));
        }),
        LEVEL_COLUMNS.map((c) =>
          c === 'load' || c === 'verdict' || c === 'cache' || c === 'status' ? 'l' : 'r',
        ),
      ),
      '',
    );
    const notes = [
      ...row.levels.map(levelNote).filter((n): n is string => !!n),
      ...(row.search ? [searchText(row.search, slo)] : []),
    ];
    if (notes.length) out.push(...notes.map((n) => `- ${mdEscape(n)}`), '');
  }
  return out;
}

function prefillTableMd(
  pre: ReturnType<typeof prefillPoints>,
  anomalies: ReturnType<typeof findAnomalies>,
): string {
  const flagged = prefillOutlierContexts(anomalies);
  const tokens = pre.some((p) => p.promptTokens !== null);
  return mdTable(
    ['Context', 'Prompt tok/s', 'TTFT', ...(tokens ? ['Prompt tokens'] : []), 'Note'],
    pre.map((p) => [
      contextLabel(p.contextTokens),
      fmtTokS(p.tokensPerS),
      fmtMs(p.ttftMs),
      ...(tokens ? [p.promptTokens === null ? DASH : p.promptTokens.toLocaleString('en-US')] : []),
      [
        p.status !== 'Valid'
          ? p.status
          : flagged.has(p.contextTokens)
            ? '⚠ outlier'
            : p.decodeContext === false
              ? 'prefill only'
              : '',
        prefillEvidence(p),
      ]
        .filter(Boolean)
        .join('; '),
    ]),
    ['l', 'r', 'r', ...(tokens ? (['r'] as const) : []), 'l'],
  );
}

function decodeSectionMd(r: RunResult, anomalies: ReturnType<typeof findAnomalies>): string[] {
  const notes = statusNotes(r.decode.map((c) => c.status));
  const why = [
    anomalies.some((a) => a.kind === 'ttft-outlier') && 'far above its neighbouring cells',
    anomalies.some((a) => a.kind === 'held-stream') && "or not the server's (a stream held back on the way)",
  ].filter(Boolean);
  const ttftFlag = why.length
    ? [`*⚠ after a TTFT: ${why.join(' ').replace(/^or /, '')}, see Anomalies.*  `]
    : [];
  return [
    '### Sustained decode matrix',
    '',
    'Total tok/s · rows are context length, columns are simultaneous requests.',
    '',
    decodeMatrixMd(r),
    '',
    ...notes.map((n) => `*${n}*  `),
    ...ttftFlag,
    TTFT_NOTE,
    '',
  ];
}
