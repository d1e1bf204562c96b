import type { ServiceLevel } from '../results/schema.js';
import { anomaliesByCell, findAnomalies } from './anomalies.js';
import { compareAnswerHtml, type CompareAnswer } from './answer-view.js';
import {
  cellRatio,
  findPrefill,
  getCell,
  gpuNote,
  missingReason,
  notLikeForLikeLines,
  prefillRatio,
  type CompareModel,
  compareAnswerOf,
} from './compare-model.js';
import {
  cellName,
  contextLabel,
  DASH,
  fmtDate,
  fmtMs,
  fmtRatio,
  fmtTokS,
  fmtTokSChart,
} from '../format/index.js';
import {
  allVerdicts,
  summaryGroups,
  VERDICT_HEADS,
  verdictRows,
  verdictSummary,
} from './compare-verdicts.js';
import { cssVars, ratioColor, SERIES } from './html/color.js';
import { esc, escText } from './html/escape.js';
import { cornerMarks, heatmapHtml, matrixMinWidth, QUEUED_BADGE } from './html/heatmap.js';
import { lineChartSvg } from './html/line-chart.js';
import { card, htmlPage, topHeader, type PageOptions } from './html/page.js';

function ratioHeatmap(m: CompareModel, bi: number): string {
  const a = m.runs[0]!;
  const b = m.runs[bi]!;
  const head = `<tr><th class="corner"><span>context ↓</span><span>requests at once →</span></th>${m.concurrency
    .map((n) => `<th scope="col">${n}</th>`)
    .join('')}</tr>`;
  const body = m.contexts
    .map((ctx) => {
      const tds = m.concurrency.map((n) => {
        const ca = getCell(a, ctx, n);
        const cb = getCell(b, ctx, n);
        const ratio = cellRatio(ca, cb);
        const data = `data-ratio-cell data-context="${ctx}" data-concurrency="${n}"`;
        if (ratio === undefined) {
          const why = missingReason(ca, cb, a.label, b.label);
          return why
            ? `<td class="hm-cell st-over" ${data} data-missing="${esc(why)}"><span class="hm-over">${esc(why)}</span></td>`
            : `<td class="hm-empty" ${data}>·</td>`;
        }
        const tip = `${cellName({ contextTokens: ctx, concurrency: n })}: ${b.label} ${fmtTokS(cb!.totalTokensPerS)} vs ${a.label} ${fmtTokS(
          ca!.totalTokensPerS,
        )} tok/s total; TTFT ${fmtMs(cb!.ttftMs)} vs ${fmtMs(ca!.ttftMs)}`;
        const queued = ca!.status === 'Requests queued' || cb!.status === 'Requests queued';
        return (
          `<td class="hm-cell hm-box${queued ? ' st-queued' : ''}" style="${cssVars(ratioColor(ratio))}" ${data} data-ratio="${ratio.toFixed(4)}" title="${esc(tip)}">` +
          `<div class="hm-in">${cornerMarks(queued ? QUEUED_BADGE : '', '')}<span class="hm-v">${esc(fmtRatio(ratio))}</span>` +
          `<span class="hm-t">${esc(fmtTokSChart(ca!.totalTokensPerS))} → ${esc(fmtTokSChart(cb!.totalTokensPerS))}</span></div></td>`
        );
      });
      return `<tr><th scope="row">${esc(contextLabel(ctx))}</th>${tds.join('')}</tr>`;
    })
    .join('\n');
  const legend = `<div class="legend"><div class="lg-scale"><span>¼×</span><span class="lg-rgrad" aria-hidden="true"></span><span>4× · ${esc(
    b.label,
  )} total tok/s ÷ ${esc(a.label)} total tok/s (log scale, 1.00× neutral)</span></div></div>`;
  return `<div class="hm-wrap"><table class="heatmap ratio" style="${matrixMinWidth(m.concurrency.length)}" data-ratio-of="${esc(b.label)}/${esc(a.label)}"><thead>${head}</thead><tbody>${body}</tbody></table></div>${legend}`;
}

function prefillOverlay(m: CompareModel): string {
  const cats = m.prefillContexts.map(contextLabel);
  return lineChartSvg({
    series: m.runs.map((r, i) => ({
      name: runName(m, r),
      color: SERIES[i % SERIES.length]!,
      dashed: i > 0 && i % 2 === 0,
      points: m.prefillContexts.flatMap((ctx, ci) => {
        const p = findPrefill(r.result, ctx);
        return p?.tokensPerS
          ? [
              {
                x: ci,
                y: p.tokensPerS,
                label: fmtTokSChart(p.tokensPerS),
                tip: `${r.label} ${cats[ci]}: ${fmtTokS(p.tokensPerS)} tok/s, TTFT ${fmtMs(p.ttftMs)}`,
              },
            ]
          : [];
      }),
    })),
    xKind: 'category',
    categories: cats,
    xLabel: 'context length →',
    yLabel: 'prompt tok/s',
    xFormat: String,
    yFormat: fmtTokSChart,
    ariaLabel: 'Prompt tokens per second by context, one line per run',
    height: 320,
  });
}

function prefillTable(m: CompareModel): string {
  const a = m.runs[0]!;
  const others = m.runs.slice(1);
  const head = [
    'Context',
    ...m.runs.map((r) => `${r.label} tok/s`),
    ...others.map((r) => `${r.label}/${a.label}`),
  ];
  const rows = m.prefillContexts
    .map((ctx) => {
      const cells = [
        contextLabel(ctx),
        ...m.runs.map((r) => fmtTokS(findPrefill(r.result, ctx)?.tokensPerS)),
        ...others.map((r) => fmtRatio(prefillRatio(findPrefill(a.result, ctx), findPrefill(r.result, ctx)))),
      ];
      return `<tr>${cells.map((c, i) => `<td${stackLabel(head, i)}>${esc(c)}</td>`).join('')}</tr>`;
    })
    .join('');
  return `<div class="tbl-wrap" style="margin-top:12px"><table class="data prefill-ratio stack"><thead><tr>${head
    .map((h) => `<th>${esc(h)}</th>`)
    .join('')}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

// slo: the level the answer and the load levels' verdicts are judged by (else each run's own); answer: the runs'
// answers under it, judged once by the caller (compareAnswerOf).
export function renderCompareHtml(
  m: CompareModel,
  page: PageOptions = {},
  o: { slo?: ServiceLevel | undefined; answer?: CompareAnswer } = {},
): string {
  const { slo } = o;
  const answer = o.answer ?? compareAnswerOf(m, slo);
  const a = m.runs[0]!;
  const parts: string[] = [
    topHeader(
      'Speed test comparison',
      m.runs.map((r) => r.title).join(' vs '),
      `${m.runs.length} runs · ratios are relative to run ${a.label}`,
    ),
    ...notLikeForLikeLines(m).map(
      (l) => `<ol class="anomalies like-for-like"><li class="sev-warn">${escText(l)}</li></ol>`,
    ),
    compareAnswerHtml(answer),
    runKpis(m),
    differencesCard(m),
    ...allVerdicts(m, slo).map(verdictCard),
  ];
  for (let bi = 1; bi < m.runs.length; bi++) {
    const b = m.runs[bi]!;
    parts.push(
      card(
        `ratio-${b.label}`,
        `Total tok/s ratio ${b.label}/${a.label}`,
        `Per cell both runs measured; green: ${b.label} faster, red: slower. Below: ${a.label} → ${b.label} tok/s. ${gpuNote(a, b)}`.trim(),
        ratioHeatmap(m, bi),
      ),
    );
  }
  if (m.prefillContexts.length)
    parts.push(
      card(
        'prefill',
        'Prefill',
        'Prompt tok/s by context length, runs overlaid.',
        prefillOverlay(m) + prefillTable(m),
      ),
    );
  parts.push(matricesCard(m));
  return htmlPage(`Comparison · ${m.runs.map((r) => r.title).join(' vs ')}`, parts.join('\n'), page);
}

// Each run's card names its run id and start, so two runs with the same title (two demos) are told apart.
function runKpis(m: CompareModel): string {
  return `<div class="kpis">${m.runs
    .map(
      (r) =>
        `<div class="kpi" data-run-label="${esc(r.label)}"><div class="k">Run ${esc(r.label)}</div><div class="v" style="font-size:17px">${escText(r.title)}</div><div class="d">${escText(
          [r.result.engine.name, r.result.engine.version, r.result.target.model].filter(Boolean).join(' · '),
        )}</div><div class="d run-id">${escText(`${r.result.runId} · started ${fmtDate(r.result.startedAt)}`)}</div></div>`,
    )
    .join('')}</div>`;
}

/** "A: title", with the run id where another run has the same title. */
function runName(m: CompareModel, r: CompareModel['runs'][number]): string {
  const twin = m.runs.some((o) => o !== r && o.title === r.title);
  return `${r.label}: ${r.title}${twin ? ` (${r.result.runId})` : ''}`;
}

function differencesCard(m: CompareModel): string {
  return card(
    'differences',
    'Metadata differences',
    'Fields whose values differ between runs.',
    m.metaDiffs.length
      ? `<table class="diff"><thead><tr><th>Field</th>${m.runs.map((r) => `<th>${esc(r.label)}</th>`).join('')}</tr></thead><tbody>${m.metaDiffs
          .map(
            (d) =>
              `<tr><th scope="row">${esc(d.field)}</th>${d.values.map((v, i) => `<td data-label="${esc(m.runs[i]!.label)}">${escText(v || DASH)}</td>`).join('')}</tr>`,
          )
          .join('')}</tbody></table>`
      : '<p class="muted">None: the runs share hardware, engine and run settings.</p>',
  );
}

// A phone shows a "stack" table's rows as lines of "name value" (src/report/html/styles.ts): the first cell
// leads, the others carry their column's name.
const stackLabel = (head: readonly string[], i: number) => (i === 0 ? '' : ` data-label="${esc(head[i]!)}"`);

const verdictClass = (col: number, text: string) =>
  col !== 5 ? '' : text === 'slower' ? ' class="bad"' : text === 'faster' ? ' class="good"' : '';

function verdictCard(vs: ReturnType<typeof allVerdicts>[number]): string {
  const lines = verdictSummary(vs);
  return card(
    `verdicts-${vs.b.label}`,
    `Verdicts ${vs.b.label} vs ${vs.a.label}`,
    vs.verdicts.some((v) => v.level)
      ? 'Faster, slower or no significant difference, per cell (total tok/s), prefill point and load level (goodput, TTFT p50 and p90, E2E p50, output tok/s; docs/method.md "Verdicts").'
      : 'Faster, slower or no significant difference, per cell (total tok/s) and prefill point (docs/method.md "Verdicts").',
    `<ul class="verdicts">${summaryGroups(lines)
      .map(
        (g) =>
          `<li>${esc(g.text)}${g.items.length ? `<ul>${g.items.map((i) => `<li>${esc(i)}</li>`).join('')}</ul>` : ''}</li>`,
      )
      .join('')}</ul>` +
      `<div class="tbl-wrap"><table class="data verdict-list stack"><thead><tr>${VERDICT_HEADS(vs)
        .map((h) => `<th>${esc(h)}</th>`)
        .join('')}</tr></thead><tbody>${verdictRows(vs)
        .map(
          (r) =>
            `<tr>${r.map((c, i) => `<td${verdictClass(i, c)}${stackLabel(VERDICT_HEADS(vs), i)}>${esc(c)}</td>`).join('')}</tr>`,
        )
        .join('')}</tbody></table></div>`,
  );
}

/** Every run's matrix side by side, on one colour scale across all of them. */
function matricesCard(m: CompareModel): string {
  const all = m.runs.flatMap((r) =>
    r.result.decode.map((c) => c.totalTokensPerS).filter((v): v is number => v !== null && v > 0),
  );
  const scale = all.length ? { min: Math.min(...all), max: Math.max(...all) } : undefined;
  return card(
    'matrices',
    'Sustained decode matrices',
    'Total tok/s and median TTFT per cell, side by side, on one colour scale.',
    `<div class="side">${m.runs
      .map((r) => {
        const gpus =
          r.result.hardware.gpuCount && r.result.hardware.gpuCount > 1
            ? r.result.hardware.gpuCount
            : undefined;
        return `<div><h3>${escText(runName(m, r))}</h3>${heatmapHtml(r.result, anomaliesByCell(findAnomalies(r.result)), gpus, r.label, scale)}</div>`;
      })
      .join('')}</div>`,
  );
}
