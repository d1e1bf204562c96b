import { contextLabel } from '../format/index.js';
import {
  answerRows,
  basisNote,
  capacityPhrase,
  serviceLevelLine,
  singleUserLine,
  type Answer,
  type AnswerRow,
} from '../answer/answer.js';
import { esc, escBreakable, escText } from './html/escape.js';
import { mdEscape, mdTable } from './markdown.js';
import { answerTitle, hasRates, RATES_HEADING, ratesHeading, rateAnswerRows } from './rate-answer-view.js';
import { ratePhrase, rowLabel } from '../answer/levels.js';

// The answer, first in every report (docs/report.md "The answer"): the service level, one user's speed, per
// context how many users at once meet it, why not more and what to change. A what-if from a twin, when the caller
// computed one, is printed under it, marked as a prediction.

export type { WhatIfNote } from '../answer/what-if.js';
import type { WhatIfNote } from '../answer/what-if.js';

export const ANSWER_TITLE = 'The answer · users at once under a service level';

// The answer's prose quotes a command to paste in backticks (src/answer/reasons.ts): code in Markdown and HTML, the
// rest escaped as prose. Odd parts of the split are the commands.
const quoted = (text: string) => text.split(/`([^`]+)`/);

/** Answer prose in Markdown (a table cell): commands as code spans. */
export function answerProseMd(text: string): string {
  return quoted(text)
    .map((p, i) => (i % 2 ? `\`${p.replace(/\|/g, '\\|')}\`` : mdEscape(p)))
    .join('');
}

function answerProseHtml(text: string): string {
  return quoted(text)
    .map((p, i) =>
      // Each word of a command kept whole on a line (never "llm-" / "inference-bench", "--max-" / "output").
      i % 2
        ? `<code>${p
            .split(' ')
            .map((w) => `<span class="id">${esc(w)}</span>`)
            .join(' ')}</code>`
        : escText(p),
    )
    .join('');
}

// Contexts whose limits have the same remedy are told it once: "Change (8K, 16K): ..." (a matrix of 8 contexts
// often has one or two).
export function groupedChanges(rows: readonly AnswerRow[]): Array<{ contexts: string[]; change: string }> {
  const out: Array<{ contexts: string[]; change: string }> = [];
  for (const r of rows) {
    const same = out.find((g) => g.change === r.change);
    if (same) same.contexts.push(r.context);
    else out.push({ contexts: [r.context], change: r.change });
  }
  return out;
}

export type TextPaint = (s: string, style?: 'bold' | 'dim' | 'green' | 'yellow' | 'red' | 'cyan') => string;

/** The answer at a terminal width: a short table, then each distinct reason with its change. */
export function answerTextLines(
  a: Answer,
  width: number,
  paint: TextPaint,
  wrap: (text: string, width: number, indent?: string) => string[],
  whatIf: readonly WhatIfNote[] = [],
): string[] {
  const rows = answerRows(a);
  const out: string[] = wrap(answerTitle(a, ANSWER_TITLE), width, '  ').map((l) => paint(l, 'bold'));
  const para = (text: string, style?: 'dim') =>
    wrap(text, width - 2, '    ').map((l) => paint(`  ${l}`, style));
  out.push(...para(serviceLevelLine(a)));
  const single = singleUserLine(a);
  if (single) out.push(...para(single));
  const note = basisNote(a);
  if (note) out.push(...para(note, 'dim'));
  if (!rows.length)
    return [
      ...out,
      ...(a.rates?.length
        ? rateTextLines(a, width, paint, wrap)
        : para('No decode cell measured: nothing to judge.', 'dim')),
    ];
  // Narrow terminals drop the total column, then put the reason on its own line: figures must fit.
  const capW = Math.max(14, ...rows.map((r) => r.capacity.length + 1));
  const room = (tot: number) => width - 2 - 6 - capW - tot - 2;
  const totW = room(13) >= 24 ? 13 : 0;
  const whyW = room(totW) >= 24 ? room(totW) : 0;
  const head = `  ${'ctx'.padEnd(6)}${'users at once'.padEnd(capW)}${totW ? 'total tok/s'.padStart(totW) : ''}`;
  out.push(paint(`${head}${whyW ? '  why not more' : ''}`.trimEnd(), 'dim'));
  for (const r of rows) {
    const total = totW ? r.total.replace(' tok/s total', '').padStart(totW) : '';
    const line = `  ${paint(r.context.padEnd(6), 'bold')}${paint(r.capacity.padEnd(capW), 'green')}${total}`;
    if (whyW) {
      const [first, ...more] = wrap(r.short, whyW, '');
      const at = ' '.repeat(2 + 6 + capW + totW + 2);
      out.push(`${line}  ${first ?? ''}`.trimEnd(), ...more.map((l) => `${at}${l}`));
    } else out.push(line.trimEnd(), ...wrap(r.short, width - 8, '').map((l) => `        ${l}`));
  }
  for (const r of rows) out.push(...wrap(`${r.context}: ${r.why}`, width - 2, '    ').map((l) => `  ${l}`));
  for (const g of groupedChanges(rows))
    out.push(
      ...wrap(`Change (${g.contexts.join(', ')}): ${g.change}.`, width - 2, '    ').map((l) =>
        paint(`  ${l}`, 'cyan'),
      ),
    );
  out.push(...rateTextLines(a, width, paint, wrap));
  for (const w of whatIf) out.push(...para(`What if (predicted): ${w.text}`, 'dim'));
  return out;
}

// Per row with rates: its sentence, then the evidence and the rates said in words, indented under it.
function rateTextLines(
  a: Answer,
  width: number,
  paint: TextPaint,
  wrap: (text: string, width: number, indent?: string) => string[],
): string[] {
  const rows = rateAnswerRows(a);
  if (!rows.length) return [];
  const out = wrap(`${ratesHeading(a)}:`, width - 2, '  ').map((l) => paint(`  ${l}`, 'dim'));
  for (const r of rows) {
    const [first, ...more] = wrap(r.sentence, width - 2, '    ');
    const label = (first ?? '').slice(0, r.row.length + 1);
    out.push(
      `  ${paint(label, 'bold')}${paint((first ?? '').slice(label.length), 'green')}`,
      ...more.map((l) => `  ${l}`),
    );
    for (const t of [r.evidence, ...r.notes])
      out.push(...wrap(t, width - 4, '  ').map((l) => paint(`    ${l}`, 'dim')));
    if (r.why) out.push(...wrap(`Why not more: ${r.why}`, width - 4, '  ').map((l) => `    ${l}`));
    if (r.change)
      out.push(...wrap(`Change: ${r.change}.`, width - 4, '  ').map((l) => paint(`    ${l}`, 'cyan')));
  }
  return out;
}

/** The answer's lines above its table, in Markdown (the report and `share`). */
export function answerLinesMd(a: Answer): string[] {
  const out = [`**${mdEscape(serviceLevelLine(a))}**  `];
  const single = singleUserLine(a);
  if (single) out.push(`${mdEscape(single)}  `);
  const note = basisNote(a);
  if (note) out.push(`*${mdEscape(note)}*`);
  return [...out, ''];
}

/** The answer in Markdown: two lines and a table. */
export function answerMd(a: Answer, whatIf: readonly WhatIfNote[] = []): string[] {
  const rows = answerRows(a);
  const out: string[] = ['### The answer', '', ...answerLinesMd(a)];
  if (!rows.length)
    return [...out, ...(a.rates?.length ? rateMd(a) : ['No decode cell measured: nothing to judge.', ''])];
  out.push(
    mdTable(
      ['Context', 'Users at once', 'Evidence', 'Total tok/s', 'Why not more', 'What to change'],
      rows.map((r) => [
        r.context,
        `**${mdEscape(r.capacity)}**`,
        mdEscape(r.evidence),
        mdEscape(r.total.replace(' tok/s total', '')),
        answerProseMd(r.why),
        answerProseMd(r.change),
      ]),
      ['l', 'l', 'l', 'r', 'l', 'l'],
    ),
    '',
  );
  out.push(...rateMd(a));
  for (const w of whatIf) out.push(`- *What if (predicted):* ${mdEscape(w.text)}`);
  if (whatIf.length) out.push('');
  return out;
}

/** The answer in requests per second in Markdown: a table per row, the rates in words under it. */
export function rateMd(a: Answer): string[] {
  const rows = rateAnswerRows(a);
  if (!rows.length) return [];
  // No rate to answer in (a workload's closed levels, a trace): the row, its answer in words, the evidence.
  if (!hasRates(a))
    return [
      `**${mdEscape(ratesHeading(a))}**`,
      '',
      mdTable(
        ['Row', 'Under the service level', 'Evidence'],
        rows.map((r) => [mdEscape(r.row), `**${mdEscape(r.phrase)}**`, mdEscape(r.evidence)]),
      ),
      '',
    ];
  return [
    `**${mdEscape(ratesHeading(a))}**`,
    '',
    mdTable(
      ['Row', 'Requests per second', 'Evidence', 'Users at once', 'Why not more', 'What to change'],
      rows.map((r) => [
        mdEscape(r.row),
        `**${mdEscape(r.phrase)}**`,
        mdEscape(r.evidence),
        mdEscape(r.users),
        answerProseMd(r.why),
        answerProseMd(r.change),
      ]),
    ),
    '',
    ...rows.flatMap((r) => r.notes.map((n) => `- ${mdEscape(`${r.row}: ${n}`)}`)),
    ...(rows.some((r) => r.notes.length) ? [''] : []),
  ];
}

/** The answer as the first card of an HTML report (and of `serve`'s run page). */
export function answerHtml(a: Answer, whatIf: readonly WhatIfNote[] = []): string {
  const rows = answerRows(a);
  const single = singleUserLine(a);
  const note = basisNote(a);
  const head = `<p class="answer-slo">${esc(serviceLevelLine(a))}</p>${single ? `<p class="answer-one">${esc(single)}</p>` : ''}${
    note ? `<p class="note">${esc(note)}</p>` : ''
  }`;
  const body =
    !rows.length && a.rates?.length
      ? ''
      : rows.length
        ? `<div class="tbl-wrap"><table class="data answer" id="answer-table"><thead><tr><th scope="col">Context</th><th scope="col">Users at once</th><th scope="col">Total tok/s</th><th scope="col">Why not more</th><th scope="col">What to change</th></tr></thead><tbody>${rows
            .map(
              (r) =>
                `<tr data-context="${esc(r.context)}"><th scope="row">${esc(r.context)}</th><td data-label="Users at once"><strong>${esc(r.capacity)}</strong><br><span class="muted">${esc(r.evidence)}</span></td><td data-label="Total tok/s">${esc(
                  r.total.replace(' tok/s total', '') || '—',
                )}</td><td data-label="Why not more">${answerProseHtml(r.why)}</td><td data-label="What to change">${answerProseHtml(r.change)}</td></tr>`,
            )
            .join('')}</tbody></table></div>`
        : '<p>No decode cell measured: nothing to judge.</p>';
  const what = whatIf.length
    ? `<ul class="notes whatif">${whatIf.map((w) => `<li><strong>What if (predicted):</strong> ${escText(w.text)}</li>`).join('')}</ul>`
    : '';
  return `<section class="card answer" id="answer"><div class="sec-head"><h2>${esc(answerTitle(a, ANSWER_TITLE))}</h2></div>${head}${body}${rateHtml(a)}${what}</section>`;
}

function rateHtml(a: Answer): string {
  const rows = rateAnswerRows(a);
  if (!rows.length) return '';
  if (!hasRates(a))
    return `<h3 class="answer-rates" style="margin:16px 0 4px">${esc(ratesHeading(a))}</h3><div class="tbl-wrap"><table class="data answer" id="answer-rates"><thead><tr><th scope="col">Row</th><th scope="col">Under the service level</th></tr></thead><tbody>${rows
      .map(
        (r) =>
          `<tr data-row="${esc(r.row)}"><th scope="row">${escBreakable(r.row)}</th><td data-label="Under the service level"><strong>${esc(r.phrase)}</strong>${r.evidence ? `<br><span class="muted">${esc(r.evidence)}</span>` : ''}</td></tr>`,
      )
      .join('')}</tbody></table></div>`;
  const notes = rows.flatMap((r) => r.notes.map((n) => `<li>${escText(`${r.row}: ${n}`)}</li>`));
  return `<h3 class="answer-rates" style="margin:16px 0 4px">${esc(ratesHeading(a))}</h3><div class="tbl-wrap"><table class="data answer" id="answer-rates"><thead><tr><th scope="col">Row</th><th scope="col">Requests per second</th><th scope="col">Users at once</th><th scope="col">Why not more</th><th scope="col">What to change</th></tr></thead><tbody>${rows
    .map(
      (r) =>
        `<tr data-row="${esc(r.row)}"><th scope="row">${escBreakable(r.row)}</th><td data-label="Requests per second"><strong>${esc(r.phrase)}</strong><br><span class="muted">${esc(r.evidence)}</span></td><td data-label="Users at once">${esc(r.users)}</td><td data-label="Why not more">${answerProseHtml(r.why)}</td><td data-label="What to change">${answerProseHtml(r.change)}</td></tr>`,
    )
    .join(
      '',
    )}</tbody></table></div>${notes.length ? `<ul class="notes rate-notes">${notes.join('')}</ul>` : ''}`;
}

export interface CompareAnswer {
  levels: string[]; // the service level each run is judged by, in words (one line when they agree)
  headers: string[]; // 'Context', then each run's label
  rows: string[][]; // per context: its label, then each run's users at once and why not more
  // Per row with rates in any run: its label, then each run's highest rate meeting the level (docs/workloads.md "The
  // answer in requests per second"); absent where no run has rates.
  rates?: string[][];
}

const RATE_ROW_HEAD = 'Row';

/** Users at once under the service level, run by run: what `compare` shows first, from each run's answer. */
export function compareAnswer(runs: ReadonlyArray<{ label: string; answer: Answer }>): CompareAnswer {
  const answers = runs.map((r) => r.answer);
  const lines = answers.map((a) => serviceLevelLine(a));
  const levels = new Set(lines).size === 1 ? [lines[0]!] : lines.map((l, i) => `${runs[i]!.label}: ${l}`);
  const contexts = [...new Set(answers.flatMap((a) => a.contexts.map((c) => c.contextTokens)))].sort(
    (x, y) => x - y,
  );
  const rows = contexts.map((ctx) => [
    contextLabel(ctx),
    ...answers.map((a) => {
      const c = a.contexts.find((x) => x.contextTokens === ctx);
      return c ? `${capacityPhrase(c)} (${c.reason.short})` : '—';
    }),
  ]);
  const rateRows = [...new Set(answers.flatMap((a) => (a.rates ?? []).map((x) => x.row)))];
  const rates = rateRows.map((row) => [
    rowLabel(row),
    ...answers.map((a) => {
      const x = a.rates?.find((y) => y.row === row);
      return x ? ratePhrase(x) : '—';
    }),
  ]);
  return {
    levels,
    headers: ['Context', ...runs.map((r) => r.label)],
    rows,
    ...(rates.length ? { rates } : {}),
  };
}

const compareTitle = (c: CompareAnswer) =>
  c.rates ? ANSWER_TITLE.replace('users at once', 'users at once and requests per second') : ANSWER_TITLE;

export function compareAnswerText(
  c: CompareAnswer,
  width: number,
  paint: TextPaint,
  wrap: (t: string, w: number, i?: string) => string[],
): string[] {
  const out = [paint(compareTitle(c), 'bold')];
  for (const l of c.levels) out.push(...wrap(l, width - 2, '    ').map((x) => `  ${x}`));
  const runLines = (rows: string[][]) => {
    for (const row of rows) {
      // A label longer than the column (a workload's) takes a line of its own above its runs.
      const own = row[0]!.length > 6;
      if (own) out.push(...wrap(row[0]!, width - 2, '    ').map((x) => `  ${x}`));
      row.slice(1).forEach((v, i) => {
        const lines = wrap(`${c.headers[i + 1]}: ${v}`, width - 9, '   ');
        out.push(
          `  ${(i === 0 && !own ? row[0]! : '').padEnd(7)}${lines[0] ?? ''}`,
          ...lines.slice(1).map((l) => `         ${l}`),
        );
      });
    }
  };
  runLines(c.rows);
  if (c.rates) {
    out.push(paint(`  ${RATES_HEADING}:`, 'dim'));
    runLines(c.rates);
  }
  return out;
}

export function compareAnswerMd(c: CompareAnswer): string[] {
  return [
    '## The answer',
    '',
    ...c.levels.map((l) => `${mdEscape(l)}  `),
    '',
    mdTable(
      c.headers,
      c.rows.map((r) => r.map(mdEscape)),
    ),
    '',
    ...(c.rates
      ? [
          `**${mdEscape(RATES_HEADING)}**`,
          '',
          mdTable(
            [RATE_ROW_HEAD, ...c.headers.slice(1)],
            c.rates.map((r) => r.map(mdEscape)),
          ),
          '',
        ]
      : []),
  ];
}

// One run per column: the row's label, then each run's answer.
function runsTableHtml(
  id: string,
  headers: readonly string[],
  rows: string[][],
  label: (s: string) => string,
): string {
  return `<div class="tbl-wrap"><table class="data answer" id="${id}"><thead><tr>${headers
    .map((h) => `<th scope="col">${esc(h)}</th>`)
    .join('')}</tr></thead><tbody>${rows
    .map(
      (r) =>
        `<tr><th scope="row">${label(r[0]!)}</th>${r
          .slice(1)
          .map((v, i) => `<td data-label="${esc(headers[i + 1]!)}">${escText(v)}</td>`)
          .join('')}</tr>`,
    )
    .join('')}</tbody></table></div>`;
}

export function compareAnswerHtml(c: CompareAnswer): string {
  const head = c.levels.map((l) => `<p class="answer-slo">${esc(l)}</p>`).join('');
  const table = runsTableHtml('compare-answer', c.headers, c.rows, esc);
  const rates = c.rates
    ? `<h3 class="answer-rates" style="margin:16px 0 4px">${esc(RATES_HEADING)}</h3>` +
      runsTableHtml('compare-rates', [RATE_ROW_HEAD, ...c.headers.slice(1)], c.rates, escBreakable)
    : '';
  return `<section class="card answer" id="answer"><div class="sec-head"><h2>${esc(compareTitle(c))}</h2></div>${head}${table}${rates}</section>`;
}
