import { answerRows } from '../answer/answer.js';
import { givenAnalysis, type Analysis } from '../answer/analysis.js';
import type { WhatIfNote } from '../answer/what-if.js';
import { engineSettings } from '../engines/index.js';
import { contextLabel, fmtTokSChart } from '../format/index.js';
import type { RunResult, ServiceLevel } from '../results/schema.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { answerLinesMd, answerProseMd } from './answer-view.js';
import { rateAnswerRows } from './rate-answer-view.js';
import { mdEscape, mdTable } from './markdown.js';
import { cellMap, decodeConcurrency, decodeContexts, reportTitle, vramText } from './model.js';
import { cellKey } from '../cell-rules.js';

// `share`: a result in under 40 lines of Markdown to paste into an issue or a pull request (docs/quick.md
// "share"): the answer, the hardware and engine in one line, the matrix at a glance. Pure.

export const SHARE_MAX_LINES = 40;

function hardwareLine(r: RunResult): string {
  const h = r.hardware;
  const gpu = h.gpuName
    ? `${h.gpuCount && h.gpuCount > 1 ? `${h.gpuCount} × ` : ''}${h.gpuName}`
    : h.cpu
      ? `${h.cpu} (CPU)`
      : '';
  const vram = vramText(h);
  const e = r.engine;
  const engine = [
    engineSettings(e.name).engine === 'the server' ? e.name : engineSettings(e.name).engine,
    e.version,
  ]
    .filter(Boolean)
    .join(' ');
  return [
    [gpu, vram?.replace(/ \(.*\)$/, '')].filter(Boolean).join(', '),
    engine,
    e.quantization,
    `model ${r.target.model}`,
  ]
    .filter((x): x is string => !!x)
    .join(' · ');
}

function glance(r: RunResult): string {
  const map = cellMap(r);
  const conc = decodeConcurrency(r);
  const rows = decodeContexts(r).map((c) => [
    `**${contextLabel(c)}**`,
    ...conc.map((n) => {
      const cell = map.get(cellKey(c, n));
      if (!cell) return '·';
      if (cell.status === 'Over capacity') return 'over';
      if (cell.status === 'Failed') return 'failed';
      return `${fmtTokSChart(cell.totalTokensPerS)}${cell.status === 'Requests queued' ? ' Q' : ''}`;
    }),
  ]);
  return mdTable(['Context', ...conc.map(String)], rows, ['l', ...conc.map(() => 'r' as const)]);
}

// The change, and what the twin predicts it does (docs/report.md "The answer"): all of the what-if's advice, its second
// change included where the first alone still queues, in the row's own cell so the summary stays short.
function changeMd(change: string, whatIf: WhatIfNote | undefined): string {
  if (!whatIf) return answerProseMd(change);
  const said = whatIf.text.startsWith(`${contextLabel(whatIf.contextTokens)} `)
    ? whatIf.text.slice(contextLabel(whatIf.contextTokens).length + 1)
    : whatIf.text;
  return `${answerProseMd(change)}. *What if (predicted):* ${mdEscape(said)}`;
}

const whatIfOf = (a: Analysis, c: { contextTokens: number }) =>
  a.whatIf.find((w) => w.contextTokens === c.contextTokens);

export function renderShare(
  r: RunResult,
  o: { slo?: ServiceLevel; analysis?: Analysis; reportCommand?: string } = {},
): string {
  const a = givenAnalysis(r, o);
  const rates = rateAnswerRows(a);
  const out: string[] = [
    `### ${mdEscape(reportTitle(r))}: how many users at once${rates.length ? ' and requests per second' : ''}`,
    '',
    ...answerLinesMd(a),
  ];
  const rows = answerRows(a);
  if (rows.length)
    out.push(
      mdTable(
        ['Context', 'Users at once', 'Why not more', 'What to change'],
        a.contexts.map((c, i) => {
          const x = rows[i]!;
          return [
            x.context,
            `**${mdEscape(x.capacity)}**`,
            mdEscape(x.short),
            changeMd(x.change, whatIfOf(a, c)),
          ];
        }),
      ),
      '',
    );
  // The answer in requests per second, per row with rates (docs/workloads.md "The answer in requests per second").
  if (rates.length)
    out.push(
      mdTable(
        ['Row', 'Requests per second', 'Users at once', 'What to change'],
        rates.map((x) => [
          mdEscape(x.row),
          `**${mdEscape(x.phrase)}**`,
          mdEscape(x.users),
          x.change ? mdEscape(x.change) : '—',
        ]),
      ),
      '',
    );
  out.push(`**Hardware and engine:** ${mdEscape(hardwareLine(r))}`, '');
  if (r.decode.length)
    out.push('Total tok/s at a glance (Q: requests queued; over: beyond the KV cache):', '', glance(r), '');
  out.push(
    `<sub>${mdEscape(`${TOOL_NAME} v${TOOL_VERSION} · run ${r.runId}${r.predicted ? ' · predicted by a twin' : ''}`)}${
      o.reportCommand
        ? ` · the full report in HTML, beside the result: \`${o.reportCommand.replace(/`/g, '')}\``
        : ''
    }</sub>`,
  );
  return out.join('\n') + '\n';
}
