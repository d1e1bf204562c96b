import type { RunResult, ServiceLevel } from '../results/schema.js';
import { compareAnswerMd, compareAnswerText, type CompareAnswer } from './answer-view.js';
import { renderCompareHtml } from './compare-html.js';
import {
  cellRatio,
  compareModel,
  findPrefill,
  getCell,
  gpuNote,
  LAUNCH_COMMAND_FIELD,
  notLikeForLikeLines,
  missingReason,
  queuedIn,
  prefillRatio,
  type CompareModel,
  compareAnswerOf,
} from './compare-model.js';
import {
  allVerdicts,
  summaryGroups,
  VERDICT_HEADS,
  verdictRows,
  verdictSummary,
  type VerdictSet,
} from './compare-verdicts.js';
import { contextLabel, DASH, fmtRatio, fmtTokS } from '../format/index.js';
import { decodeMatrixMd, mdEscape, mdTable } from './markdown.js';
import { wrapCommand } from './wrap-command.js';
import {
  decodeMatrixLines,
  makePaint,
  TEXT_OPTION_KEYS,
  wrap,
  type Paint,
  type TextOptions,
} from './text.js';

import type { CompareFormat } from '../output-formats.js';
import { checkOptions } from '../option-keys.js';
export { COMPARE_FORMATS, type CompareFormat } from '../output-formats.js';

function ratioMatrixMd(m: CompareModel, bi: number): string {
  const a = m.runs[0]!;
  const b = m.runs[bi]!;
  const rows = m.contexts.map((ctx) => [
    `**${contextLabel(ctx)}**`,
    ...m.concurrency.map((n) => {
      const ca = getCell(a, ctx, n);
      const cb = getCell(b, ctx, n);
      const ratio = cellRatio(ca, cb);
      const q = queuedIn(ca, cb, a.label, b.label);
      if (ratio !== undefined)
        return `**${fmtRatio(ratio)}**<br>${fmtTokS(ca!.totalTokensPerS)} → ${fmtTokS(cb!.totalTokensPerS)}${q ? `<br>⚠ queued in ${q}` : ''}`;
      return missingReason(ca, cb, a.label, b.label) || DASH;
    }),
  ]);
  return mdTable(['Context', ...m.concurrency.map(String)], rows, [
    'l',
    ...m.concurrency.map(() => 'r' as const),
  ]);
}

function renderCompareMd(m: CompareModel, answer: CompareAnswer, slo?: ServiceLevel): string {
  return [
    '# Speed test comparison',
    '',
    ...runsMd(m),
    ...compareAnswerMd(answer),
    ...metadataMd(m),
    ...allVerdicts(m, slo).flatMap(verdictsMd),
    ...m.runs.slice(1).flatMap((_, i) => ratioSectionMd(m, i + 1)),
    ...prefillMd(m),
    ...m.runs.flatMap((r) => [
      `## ${r.label}: ${mdEscape(r.title)}`,
      '',
      'Total tok/s and TTFT.',
      '',
      decodeMatrixMd(r.result),
      '',
    ]),
  ].join('\n');
}

// The runs compared, and a warning for each way they are not like for like.
function runsMd(m: CompareModel): string[] {
  return [
    mdTable(
      ['Run', 'Title', 'Engine', 'Model', 'Run id'],
      m.runs.map((r) => [
        `**${r.label}**`,
        mdEscape(r.title),
        mdEscape([r.result.engine.name, r.result.engine.version].filter(Boolean).join(' ')),
        mdEscape(r.result.target.model),
        mdEscape(r.result.runId),
      ]),
    ),
    '',
    ...notLikeForLikeLines(m).flatMap((l) => [`> ⚠ ${mdEscape(l)}`, '']),
  ];
}

function metadataMd(m: CompareModel): string[] {
  return [
    '## Metadata differences',
    '',
    m.metaDiffs.length
      ? mdTable(
          ['Field', ...m.runs.map((r) => r.label)],
          m.metaDiffs.map((d) => [mdEscape(d.field), ...d.values.map((v) => (v ? mdEscape(v) : DASH))]),
        )
      : 'None: the runs share hardware, engine and run settings.',
    '',
  ];
}

// One pair's verdicts: the summary in groups, then every point both runs measured.
function verdictsMd(vs: VerdictSet): string[] {
  return [
    `## Verdicts ${vs.b.label} vs ${vs.a.label}`,
    '',
    ...summaryGroups(verdictSummary(vs)).flatMap((g) => [
      mdEscape(g.text),
      '',
      ...(g.items.length ? [...g.items.map((i) => `- ${mdEscape(i)}`), ''] : []),
    ]),
    `Every cell and prefill point ${vs.b.label} and ${vs.a.label} both measured:`,
    '',
    mdTable(
      VERDICT_HEADS(vs),
      verdictRows(vs).map((r) => r.map(mdEscape)),
      ['l', 'l', 'r', 'r', 'r', 'l'],
    ),
    '',
  ];
}

// Run bi's total tok/s over the first run's, cell by cell.
function ratioSectionMd(m: CompareModel, bi: number): string[] {
  const a = m.runs[0]!;
  const b = m.runs[bi]!;
  return [
    `## Total tok/s ratio ${b.label}/${a.label}`,
    '',
    `${b.label} = ${mdEscape(b.title)} · ${a.label} = ${mdEscape(a.title)}. Above 1.00× ${b.label} is faster. ${gpuNote(a, b)}`.trim(),
    '',
    ratioMatrixMd(m, bi),
    '',
  ];
}

function prefillMd(m: CompareModel): string[] {
  if (!m.prefillContexts.length) return [];
  const a = m.runs[0]!;
  const ratioHeads = m.runs.slice(1).map((r) => `${r.label}/${a.label}`);
  return [
    '## Prefill',
    '',
    'Prompt tok/s by context length.',
    '',
    mdTable(
      ['Context', ...m.runs.map((r) => r.label), ...ratioHeads],
      m.prefillContexts.map((ctx) => [
        contextLabel(ctx),
        ...m.runs.map((r) => fmtTokS(findPrefill(r.result, ctx)?.tokensPerS)),
        ...m.runs
          .slice(1)
          .map((r) => fmtRatio(prefillRatio(findPrefill(a.result, ctx), findPrefill(r.result, ctx)))),
      ]),
      ['l', ...m.runs.map(() => 'r' as const), ...ratioHeads.map(() => 'r' as const)],
    ),
    '',
  ];
}

function renderCompareText(m: CompareModel, opts: TextOptions, answer: CompareAnswer): string {
  const width = Math.max(60, opts.width ?? 80);
  const paint: Paint = makePaint(opts.color);
  const out: string[] = [paint('Speed test comparison', 'bold')];
  for (const r of m.runs) out.push(...wrap(`${r.label}  ${r.title} (${r.result.runId})`, width, '   '));
  for (const l of notLikeForLikeLines(m))
    out.push(...wrap(`! ${l}`, width, '  ').map((x) => paint(x, 'yellow')));
  out.push('', ...compareAnswerText(answer, width, paint, wrap));
  out.push('', paint('Metadata differences', 'bold'));
  if (!m.metaDiffs.length) out.push('  none');
  for (const d of m.metaDiffs) {
    out.push(`  ${d.field}`);
    // A launch command breaks between its words, a flag beside its value (a path or a JSON config is never cut).
    const fit = d.field === LAUNCH_COMMAND_FIELD ? wrapCommand : wrap;
    d.values.forEach((v, i) =>
      out.push(...fit(`${m.runs[i]!.label}: ${v || DASH}`, width - 4, '       ').map((l) => `    ${l}`)),
    );
  }
  for (const vs of allVerdicts(m, opts.slo)) {
    out.push('', paint(`Verdicts ${vs.b.label} vs ${vs.a.label}`, 'bold'));
    for (const l of verdictSummary(vs)) {
      const item = l.startsWith('  '); // a worst slowdown, under its heading
      out.push(...wrap(l.trim(), width - (item ? 4 : 2), '    ').map((x) => `${item ? '    ' : '  '}${x}`));
    }
    if (opts.verbose) out.push(...verdictTable(vs, width));
    else out.push(paint(`  Every cell's verdict: --verbose, or --format md / html.`, 'dim'));
  }
  const a = m.runs[0]!;
  for (let bi = 1; bi < m.runs.length; bi++) {
    const b = m.runs[bi]!;
    out.push('', paint(`Total tok/s ratio ${b.label}/${a.label} (above 1.00× ${b.label} is faster)`, 'bold'));
    out.push(
      ...decodeMatrixLines(a.result, width, paint, {
        contexts: m.contexts,
        concurrency: m.concurrency,
        cell: (ctx, n) => {
          const ca = getCell(a, ctx, n);
          const cb = getCell(b, ctx, n);
          const ratio = cellRatio(ca, cb);
          if (ratio === undefined) {
            const why = missingReason(ca, cb, a.label, b.label);
            return [why ? why.split(' ')[0]! : DASH, why.split(' ').slice(1).join(' '), 'dim'];
          }
          const q = queuedIn(ca, cb, a.label, b.label) ? 'Q' : '';
          return [fmtRatio(ratio) + q, fmtTokS(cb!.totalTokensPerS), ratio >= 1 ? 'green' : 'red'];
        },
      }),
    );
    const below = `Below each ratio: ${b.label}'s total tok/s. Q: requests queued in ${a.label}, ${b.label} or both.`;
    out.push(...wrap(below, width - 2, '  ').map((l) => paint(`  ${l}`, 'dim')));
    const note = gpuNote(a, b);
    if (note) out.push(...wrap(note, width - 2, '  ').map((l) => paint(`  ${l}`, 'dim')));
  }
  if (m.prefillContexts.length) {
    out.push('', paint('Prefill · prompt tok/s', 'bold'));
    const heads = [
      'ctx',
      ...m.runs.map((r) => r.label),
      ...m.runs.slice(1).map((r) => `${r.label}/${a.label}`),
    ];
    out.push(paint(heads.map((h, i) => (i ? h.padStart(9) : h.padEnd(6))).join(' '), 'bold'));
    for (const ctx of m.prefillContexts) {
      const vals = [
        ...m.runs.map((r) => fmtTokS(findPrefill(r.result, ctx)?.tokensPerS)),
        ...m.runs
          .slice(1)
          .map((r) => fmtRatio(prefillRatio(findPrefill(a.result, ctx), findPrefill(r.result, ctx)))),
      ];
      out.push([contextLabel(ctx).padEnd(6), ...vals.map((v) => v.padStart(9))].join(' '));
    }
  }
  for (const r of m.runs) {
    out.push('', paint(`${r.label}: total tok/s and TTFT`, 'bold'));
    out.push(...decodeMatrixLines(r.result, width, paint));
  }
  return out.join('\n') + '\n';
}

// --verbose: every verdict, one line each, columns aligned; the verdict wraps under itself when long.
function verdictTable(vs: VerdictSet, width: number): string[] {
  const rows = [VERDICT_HEADS(vs), ...verdictRows(vs)];
  const cols = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  const right = [false, false, true, true, true];
  const lead = (r: string[]) =>
    '  ' + cols.map((w, i) => (right[i] ? r[i]!.padStart(w) : r[i]!.padEnd(w))).join('  ') + '  ';
  return rows.flatMap((r) => {
    const head = lead(r);
    // Under 20 columns left, the verdict goes under its row, four in, rather than past the width.
    if (width - head.length < 20)
      return [head.trimEnd(), ...wrap(r[5]!, width - 4, '').map((l) => `    ${l}`)];
    const [first, ...more] = wrap(r[5]!, width - head.length, '');
    return [head + first, ...more.map((l) => ' '.repeat(head.length) + l)];
  });
}

export function renderCompare(results: RunResult[], format: CompareFormat, opts: TextOptions = {}): string {
  checkOptions('renderCompare', opts, TEXT_OPTION_KEYS);
  const m = compareModel(results);
  const answer = compareAnswerOf(m, opts.slo); // each run's answer, once
  if (format === 'md') return renderCompareMd(m, answer, opts.slo);
  if (format === 'html') return renderCompareHtml(m, {}, { slo: opts.slo, answer });
  return renderCompareText(m, opts, answer);
}
