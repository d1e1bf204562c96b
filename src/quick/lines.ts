import { capacityPhrase, singleUserLine, tooCloseToCall, type Answer } from '../answer/answer.js';
import { engineSettings } from '../engines/index.js';
import { contextLabel, fmtTokS } from '../format/index.js';
import { formatServiceLevel } from '../stats/slo.js';
import type { TargetInfo } from '../target/types.js';
import type { WhatIfNote } from '../answer/what-if.js';

// What `quick` prints: the server it found in one line, and the answer in at most ten lines of 80 columns
// (docs/quick.md). Pure.

export const QUICK_WIDTH = 80;
export const QUICK_MAX_LINES = 10;

/** "vLLM 0.30.0 at http://127.0.0.1:8000/v1, model sim/tiny" */
export function quickFoundLine(info: Pick<TargetInfo, 'engine' | 'model'>, baseUrl: string): string {
  const e = engineSettings(info.engine.name);
  const name = e.engine === 'the server' ? info.engine.name : e.engine;
  return fit(
    `${name}${info.engine.version ? ` ${info.engine.version}` : ''} at ${baseUrl}, model ${info.model}`,
  );
}

function fit(line: string, width = QUICK_WIDTH): string {
  return line.length <= width ? line : `${line.slice(0, width - 1)}…`;
}

// Greedy word wrap to the quick width after a prefix, continuation lines two further in.
function wrapped(text: string, prefix = '', width = QUICK_WIDTH): string[] {
  const out: string[] = [];
  let line = '';
  const lead = () => (out.length ? `${prefix}  ` : prefix);
  for (const w of text.split(/\s+/).filter(Boolean)) {
    if (line && `${lead()}${line} ${w}`.length > width) {
      out.push(fit(`${lead()}${line}`, width));
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) out.push(fit(`${lead()}${line}`, width));
  return out;
}

export function quickAnswerLines(
  a: Answer,
  where: { report: string; result: string },
  whatIf: readonly WhatIfNote[] = [],
): string[] {
  const level = `${a.slo.name ? `${a.slo.name}: ` : ''}${formatServiceLevel(a.slo)}`;
  const head = [
    fit(`Answer for ${level}${a.sloFrom === 'default' ? ' (the default; --slo to change)' : ''}`),
  ];
  const single = singleUserLine(a);
  if (single) head.push(...wrapped(single, '  '));
  const perContext = a.contexts.flatMap((c) =>
    wrapped(
      `${contextLabel(c.contextTokens)}: ${capacityPhrase(c)} at once` +
        (c.capacity ? ` (${fmtTokS(c.capacity.cell.totalTokensPerS)} tok/s total)` : '') +
        (c.capacity && c.undecided.length ? `; ${tooCloseToCall(c)}` : ''),
      '  ',
    ),
  );
  const tail = [fit(`Full report: ${where.report}`)];
  // The limit of the shortest context first: the one most users meet; a second context's only if it differs.
  const reasons: string[][] = [];
  const seen = new Set<string>();
  for (const c of a.contexts) {
    if (seen.has(c.reason.change)) continue;
    seen.add(c.reason.change);
    reasons.push([
      ...wrapped(`Why not more at ${contextLabel(c.contextTokens)}: ${c.reason.short}.`),
      ...wrapped(`Change: ${c.reason.change}.`, '  '),
    ]);
  }
  const lines = [...head, ...perContext];
  for (const r of reasons) if (lines.length + r.length + tail.length <= QUICK_MAX_LINES) lines.push(...r);
  for (const w of whatIf) {
    const l = wrapped(`What if (predicted): ${w.text}`, '  ');
    if (lines.length + l.length + tail.length <= QUICK_MAX_LINES) lines.push(...l);
  }
  return [...lines.slice(0, QUICK_MAX_LINES - tail.length), ...tail];
}
