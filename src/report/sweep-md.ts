import { cellName, contextLabel, DASH, fmtDate, fmtTokS } from '../format/index.js';
import { csvLine } from './csv.js';
import { mdEscape, mdFence, mdTable } from './markdown.js';
import * as sweep from './sweep-model.js';
import type { SweepModel } from './sweep-model.js';
import { cellKey } from '../cell-rules.js';

// The sweep report as Markdown, CSV (one row per configuration and cell) and JSON (the model's verdicts).

const LEGEND =
  "Users: how many at once the configuration serves under the service level (+: every level measured met it). Best: the fastest configuration and its margin over the runner-up (± the 95% interval), faster beyond noise by compare's test (99% on the log ratio, at least 2%); ≈: no significant difference; Q: requests queued, worse at that level than a configuration that ran them all at once, whatever its tok/s.";

function cellMd(m: SweepModel, i: number, ctx: number, n: number): string {
  const cell = m.configs[i]!.cells.get(cellKey(ctx, n));
  if (!cell) return DASH;
  if (cell.status === 'Over capacity') return '*over*';
  if (cell.status === 'Failed') return '*failed*';
  const v = m.cells.find((x) => x.contextTokens === ctx && x.concurrency === n);
  const text = `${fmtTokS(cell.totalTokensPerS)}${cell.status === 'Requests queued' ? ' Q' : ''}`;
  return sweep.isBestOf(v, i) ? `**${text}**` : text;
}

export function renderSweepMd(m: SweepModel): string {
  const out: string[] = [`# ${mdEscape(m.title)}`, ''];
  out.push(
    `${m.configs.length} configurations · ${m.file.status} · started ${mdEscape(fmtDate(m.file.startedAt))}`,
    '',
    mdFence(m.file.serveCmd, 'sh'),
    '',
    '## Configurations',
    '',
    mdTable(
      ['', 'Configuration', 'Status', 'Cells', 'Linked', 'Server command'],
      m.configs.map((c) => [
        `**${c.letter}**`,
        mdEscape(c.label),
        mdEscape(sweep.STATUS_WORD[c.status] ?? c.status) + (c.reason ? `: ${mdEscape(c.reason)}` : ''),
        c.result ? String(c.result.decode.length) : DASH,
        mdEscape(c.linked.join('; ')) || DASH,
        c.command ? `\`${c.command.replace(/`/g, "'")}\`` : DASH,
      ]),
    ),
    '',
  );
  for (const c of m.configs.filter((x) => x.logTail?.length))
    out.push(
      `Last lines of ${mdEscape(c.log ?? 'the server log')} (${c.letter}):`,
      '',
      mdFence(c.logTail!.join('\n')),
      '',
    );
  if (m.contextLines.length)
    out.push(
      '## In words',
      '',
      mdEscape(sweep.serviceLevelText(m)),
      '',
      ...m.contextLines.map((l) => `- ${mdEscape(l)}`),
      '',
    );
  const cols = m.configs.map((c, i) => i).filter((i) => m.configs[i]!.result);
  for (const ctx of m.contexts) {
    out.push(`## Total tok/s · ${contextLabel(ctx)} context`, '');
    out.push(
      mdTable(
        ['Requests at once', ...cols.map((i) => m.configs[i]!.letter), 'Best'],
        [
          ...m.concurrency.map((n) => {
            const v = m.cells.find((x) => x.contextTokens === ctx && x.concurrency === n);
            return [
              String(n),
              ...cols.map((i) => cellMd(m, i, ctx, n)),
              v ? mdEscape(sweep.bestLong(m, v)) : DASH,
            ];
          }),
          ['Users', ...cols.map((i) => sweep.usersShort(m, ctx, i) ?? DASH), DASH],
        ],
        ['r', ...cols.map(() => 'r' as const), 'l'],
      ),
      '',
    );
  }
  if (m.cells.length) out.push(LEGEND, '');
  const frontier = m.pareto.filter((p) => p.frontier).sort((a, b) => a.x - b.x);
  if (frontier.length) {
    out.push(
      '## Pareto frontier',
      '',
      sweep.paretoIntro(m),
      '',
      mdTable(
        ['Per request tok/s', m.perGpu ? 'Total tok/s per GPU' : 'Total tok/s', 'Cell', 'Configuration'],
        frontier.map((p) => [
          fmtTokS(p.y),
          fmtTokS(p.x),
          cellName(p) + (p.queued ? ' Q' : ''),
          `${m.configs[p.config]!.letter} ${mdEscape(sweep.configName(m, p.config))}`,
        ]),
        ['r', 'r', 'l', 'l'],
      ),
      '',
    );
  }
  return out.join('\n');
}

export const SWEEP_CSV_HEADERS = [
  'Context tokens',
  'Requests at once',
  'Configuration',
  'Label',
  'Status',
  'Total tok/s',
  'Total tok/s 95% low',
  'Total tok/s 95% high',
  'Per request tok/s',
  'Rank',
  'Cell verdict',
  'Best margin',
  'Best margin 95% half width',
  'On Pareto frontier',
  'Users at once under the service level',
] as const;

export function renderSweepCsv(m: SweepModel): string {
  const rows: string[] = [csvLine(SWEEP_CSV_HEADERS, SWEEP_CSV_HEADERS)];
  for (const ctx of m.contexts)
    for (const n of m.concurrency) {
      const v = m.cells.find((x) => x.contextTokens === ctx && x.concurrency === n);
      m.configs.forEach((c, i) => {
        const cell = c.cells.get(cellKey(ctx, n));
        if (!cell) return;
        const rank = v ? v.candidates.findIndex((x) => x.config === i) : -1;
        const iv = cell.intervals?.totalTokensPerS;
        const p = m.pareto.find((x) => x.config === i && x.contextTokens === ctx && x.concurrency === n);
        const best = rank === 0;
        rows.push(
          csvLine(SWEEP_CSV_HEADERS, [
            ctx,
            n,
            c.key,
            c.label,
            cell.status,
            cell.totalTokensPerS,
            iv?.lo,
            iv?.hi,
            cell.perRequestTokensPerS,
            rank >= 0 ? rank + 1 : null,
            best ? v!.outcome : null,
            best ? v!.comparison?.change : null,
            best ? v!.comparison?.changeHalfWidth : null,
            p ? p.frontier : null,
            sweep.usersShort(m, ctx, i) ?? null,
          ]),
        );
      });
    }
  return rows.join('\r\n') + '\r\n';
}

export function sweepJson(m: SweepModel): unknown {
  const key = (i: number | undefined) => (i === undefined ? null : m.configs[i]!.key);
  return {
    sweepId: m.file.sweepId,
    title: m.title,
    status: m.file.status,
    configurations: m.configs.map((c) => ({
      letter: c.letter,
      key: c.key,
      name: c.name,
      label: c.label,
      status: c.status,
      ...(c.reason ? { reason: c.reason } : {}),
      ...(c.logTail ? { logTail: c.logTail } : {}),
      ...(c.command ? { command: c.command } : {}),
      linked: c.linked,
      cells: c.result?.decode.length ?? 0,
    })),
    cells: m.cells.map((v) => ({
      contextTokens: v.contextTokens,
      concurrency: v.concurrency,
      best: key(v.candidates[0]?.config),
      runnerUp: key(v.candidates[1]?.config),
      outcome: v.outcome,
      change: v.comparison?.change ?? null,
      changeHalfWidth: v.comparison?.changeHalfWidth ?? null,
      candidates: v.candidates.map((c) => ({
        configuration: key(c.config),
        totalTokensPerS: c.value,
        interval: c.interval,
        perRequestTokensPerS: c.perRequest,
        queued: c.queued,
      })),
    })),
    perGpu: m.perGpu,
    pareto: m.pareto
      .filter((p) => p.frontier)
      .map((p) => ({ ...p, config: undefined, configuration: key(p.config) })),
    serviceLevel: { ...m.slo, from: m.sloFrom },
    users: m.users.map((u) => ({
      contextTokens: u.contextTokens,
      most: u.users,
      leaders: u.leaders.map(key),
      configurations: u.byConfig.map((b) => ({
        configuration: key(b.config),
        users: b.users,
        atLeast: b.atLeast,
      })),
    })),
    usersUnder: sweep.serviceLevelText(m),
    inWords: m.contextLines,
  };
}
