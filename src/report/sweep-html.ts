import { cellName, contextLabel, DASH, fmtDate, fmtTokS, fmtTokSChart } from '../format/index.js';
import { cssVars, ratioColor, SERIES } from './html/color.js';
import { esc } from './html/escape.js';
import { cornerMarks, matrixMinWidth, QUEUED_BADGE } from './html/heatmap.js';
import { lineChartSvg, type Series } from './html/line-chart.js';
import { card, htmlPage, topHeader, type PageOptions } from './html/page.js';
import * as sweep from './sweep-model.js';
import type { SweepModel } from './sweep-model.js';
import { cellKey } from '../cell-rules.js';

// The sweep report as one self-contained page: configurations, the words, each context's matrix with the
// configurations side by side (coloured by the ratio to the cell's fastest), and the Pareto frontier.

const LEGEND =
  "Users: how many at once the configuration serves under the service level (+: every level measured met it). Best: the fastest configuration and its margin over the runner-up (± the 95% interval), faster beyond noise by compare's test (99% on the log ratio, at least 2%); ≈: no significant difference; a configuration that queued requests is worse at that level than one that ran them all at once, whatever its tok/s. Colour: total tok/s ÷ the cell's fastest.";

// Where a configuration's own run report is (the results browser links it); none in a file.
type RunHref = ((key: string) => string) | undefined;

function configurationsCard(m: SweepModel, runHref: RunHref): string {
  const rows = m.configs
    .map((c) => {
      const tail = c.logTail?.length
        ? `<details><summary>last lines of ${esc(c.log ?? 'the server log')}</summary><pre class="cmd"><code>${esc(c.logTail.join('\n'))}</code></pre></details>`
        : '';
      const status = `${esc(sweep.STATUS_WORD[c.status] ?? c.status)}${c.reason ? `: ${esc(c.reason)}` : ''}`;
      const label =
        c.result && runHref ? `<a href="${esc(runHref(c.key))}">${esc(c.label)}</a>` : esc(c.label);
      const under = [
        ...c.linked.map((l) => `<span class="sub">linked: ${esc(l)}</span>`),
        c.command ? `<code class="sub">${esc(c.command)}</code>` : '',
      ].join('');
      return (
        `<tr data-config="${esc(c.key)}"><td><b>${esc(c.letter)}</b></td><td class="cfg">${label}${under}</td>` +
        `<td class="${c.status === 'failed' ? 'st-failed' : ''}">${status}${tail}</td>` +
        `<td class="num">${c.result ? c.result.decode.length : DASH}</td></tr>`
      );
    })
    .join('\n');
  return card(
    'configurations',
    'Configurations',
    'Each started its own server (the command under its name); secrets are replaced by <redacted>.',
    `<table class="diff sweep-configs"><thead><tr><th></th><th>Configuration and server command</th><th>Status</th><th>Cells</th></tr></thead><tbody>${rows}</tbody></table>`,
  );
}

// The configurations table: the command small under the name, the cell count narrow.
const SWEEP_CSS = `
table.sweep-configs td.cfg .sub{display:block;color:var(--muted);font-size:12px;margin-top:2px}
table.sweep-configs td.num{white-space:nowrap;text-align:right}
table.sweep-configs th{white-space:nowrap}
table.sweep-configs td:first-child{width:1.5em}
`;

function contextTable(m: SweepModel, ctx: number): string {
  const cols = m.configs.map((_, i) => i).filter((i) => m.configs[i]!.result);
  const head = `<tr><th class="corner"><span>requests ↓</span><span>configuration →</span></th>${cols
    .map((i) => `<th scope="col" title="${esc(m.configs[i]!.label)}">${esc(m.configs[i]!.letter)}</th>`)
    .join('')}<th scope="col">Best</th></tr>`;
  const body = m.concurrency
    .map((n) => {
      const v = m.cells.find((x) => x.contextTokens === ctx && x.concurrency === n);
      const top = v?.candidates[0]?.value;
      const tds = cols.map((i) => {
        const cell = m.configs[i]!.cells.get(cellKey(ctx, n));
        const data = `data-config="${esc(m.configs[i]!.key)}" data-context="${ctx}" data-concurrency="${n}"`;
        if (!cell) return `<td class="hm-empty" ${data}>·</td>`;
        if (cell.status === 'Over capacity' || cell.status === 'Failed' || !top || !cell.totalTokensPerS)
          return `<td class="hm-cell st-over" ${data}><span class="hm-over">${esc(cell.status)}</span></td>`;
        const queued = cell.status === 'Requests queued';
        const tip = `${cellName({ contextTokens: ctx, concurrency: n })} · ${m.configs[i]!.label}: ${fmtTokS(cell.totalTokensPerS)} tok/s total, ${fmtTokS(cell.perRequestTokensPerS)} tok/s per request`;
        const best = sweep.isBestOf(v, i);
        return (
          `<td class="hm-cell hm-box${queued ? ' st-queued' : ''}" style="${cssVars(ratioColor(cell.totalTokensPerS / top))}" ${data}${best ? ' data-best' : ''} title="${esc(tip)}">` +
          `<div class="hm-in">${cornerMarks(queued ? QUEUED_BADGE : '', '')}<span class="hm-v">${best ? '★ ' : ''}${esc(fmtTokSChart(cell.totalTokensPerS))}</span></div></td>`
        );
      });
      const verdict = v
        ? `<td class="hm-cell" data-outcome="${esc(v.outcome)}" title="${esc(sweep.bestLong(m, v))}"><span class="hm-v">${esc(sweep.bestShort(m, v))}</span></td>`
        : '<td class="hm-empty">·</td>';
      return `<tr><th scope="row">${n}</th>${tds.join('')}${verdict}</tr>`;
    })
    .concat(
      `<tr class="users"><th scope="row" title="${esc(sweep.serviceLevelText(m))}">users</th>${cols
        .map(
          (i) =>
            `<td class="hm-cell" data-config="${esc(m.configs[i]!.key)}">${esc(sweep.usersShort(m, ctx, i) ?? DASH)}</td>`,
        )
        .join('')}<td class="hm-empty">·</td></tr>`,
    )
    .join('\n');
  return `<div class="hm-wrap"><table class="heatmap" style="${matrixMinWidth(cols.length + 1)}"><thead>${head}</thead><tbody>${body}</tbody></table></div>`;
}

function paretoCard(m: SweepModel): string {
  if (m.pareto.length === 0) return '';
  const series: Series[] = m.configs
    .map((c, i): Series => ({
      name: `${c.letter} ${c.label}`,
      color: SERIES[i % SERIES.length]!,
      dotsOnly: true,
      points: m.pareto
        .filter((p) => p.config === i)
        .map((p) => ({
          x: p.x,
          y: p.y,
          hollow: p.queued,
          ring: p.frontier,
          tip: `${c.letter} ${c.label} · ${cellName(p)}${p.queued ? ' (Requests queued)' : ''}: ${fmtTokS(p.x)} tok/s total${m.perGpu ? ' per GPU' : ''}, ${fmtTokS(p.y)} tok/s per request${p.frontier ? ' · on the frontier' : ''}`,
        })),
    }))
    .filter((s) => s.points.length);
  const frontier = m.pareto.filter((p) => p.frontier).sort((a, b) => a.x - b.x);
  // The frontier's points keep their configuration's colour (ringed); its own series is the dashed line alone.
  series.push({
    name: 'Pareto frontier (ringed points)',
    color: 'var(--ink, #64748b)',
    dashed: true,
    lineOnly: true,
    points: frontier.map((p) => ({
      x: p.x,
      y: p.y,
      label: m.configs[p.config]!.letter,
      tip: '',
    })),
  });
  const chart = lineChartSvg({
    series,
    xKind: 'log',
    xLabel: m.perGpu ? 'total tok/s per GPU (log scale) →' : 'total tok/s (log scale) →',
    yLabel: 'per-request tok/s (median request)',
    xFormat: fmtTokSChart,
    yFormat: fmtTokSChart,
    ariaLabel: 'Per-request tokens per second against total tokens per second, every configuration and cell',
  });
  const rows = frontier
    .map(
      (p) =>
        `<tr><td>${fmtTokS(p.y)}</td><td>${fmtTokS(p.x)}</td><td>${esc(cellName(p))}${p.queued ? ' (queued)' : ''}</td><td><b>${esc(m.configs[p.config]!.letter)}</b> ${esc(sweep.configName(m, p.config))}</td></tr>`,
    )
    .join('');
  return card(
    'pareto',
    'Pareto frontier',
    `${sweep.paretoIntro(m)} Hollow: Requests queued (its per-request figure counts the requests that ran, not the wait).`,
    chart +
      `<table class="diff" id="frontier"><thead><tr><th>Per request tok/s</th><th>${m.perGpu ? 'Total tok/s per GPU' : 'Total tok/s'}</th><th>Cell</th><th>Configuration</th></tr></thead><tbody>${rows}</tbody></table>`,
  );
}

export function renderSweepHtml(m: SweepModel, page: PageOptions = {}, runHref?: RunHref): string {
  const ok = m.configs.filter((c) => c.status === 'complete').length;
  const parts = [
    topHeader(
      'Sweep',
      m.title,
      `${m.configs.length} configurations, ${ok} complete · ${m.file.status} · started ${fmtDate(m.file.startedAt)}`,
    ),
    card('serve-cmd', 'Server command', '', `<pre class="cmd"><code>${esc(m.file.serveCmd)}</code></pre>`),
    configurationsCard(m, runHref),
  ];
  if (m.contextLines.length)
    parts.push(
      card(
        'words',
        'In words',
        '',
        `<p>${esc(sweep.serviceLevelText(m))}</p><ul class="notes words">${m.contextLines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`,
      ),
    );
  for (const ctx of m.contexts)
    parts.push(
      card(
        `ctx-${ctx}`,
        `Total tok/s · ${contextLabel(ctx)} context`,
        'Rows are simultaneous requests, columns the configurations side by side.',
        contextTable(m, ctx) + `<ul class="notes"><li>${esc(LEGEND)}</li></ul>`,
      ),
    );
  parts.push(paretoCard(m));
  return htmlPage(`${m.title} · Sweep`, parts.join('\n'), { ...page, css: `${page.css ?? ''}${SWEEP_CSS}` });
}
