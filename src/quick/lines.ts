import { capacityPhrase, singleUserLine, tooCloseToCall, type Answer } from '../answer/answer.js';
import { engineSettings } from '../engines/index.js';
import { contextLabel, fmtTokS } from '../format/index.js';
import { formatServiceLevel } from '../stats/slo.js';
import type { TargetInfo } from '../target/types.js';
import type { WhatIfNote } from '../answer/what-if.js';
import { decideRun, type DecideRun } from './decide.js';
import type { QuickPlan } from './size.js';

// What `quick` prints: the server it found, the plan it runs, and the answer in at most ten lines of 80 columns
// (docs/quick.md). Every flag a line names is one quick takes, so it runs added to the command that printed it;
// a command between backticks stays whole on its line, to be copied. Pure.

export const QUICK_WIDTH = 80;
export const QUICK_MAX_LINES = 10;

/** "Found vLLM 0.30.0 at http://127.0.0.1:8000/v1, model sim/tiny", wrapped after `prefix`. */
export function quickFoundLines(
  info: Pick<TargetInfo, 'engine' | 'model'>,
  baseUrl: string,
  prefix = '',
): string[] {
  const e = engineSettings(info.engine.name);
  const name = e.engine === 'the server' ? info.engine.name : e.engine;
  return wrapped(
    `${name}${info.engine.version ? ` ${info.engine.version}` : ''} at ${baseUrl}, model ${info.model}`,
    prefix,
  );
}

/** "http://127.0.0.1:8001/v1: a server that needs an API key (--api-key)" */
export function quickKeyedLines(baseUrl: string, keyGiven: boolean, prefix = ''): string[] {
  return wrapped(
    `${baseUrl}: a server that ${keyGiven ? 'refused the API key given' : 'needs an API key (--api-key)'}`,
    prefix,
  );
}

function fit(line: string, width = QUICK_WIDTH): string {
  return line.length <= width ? line : `${line.slice(0, width - 1)}…`;
}

// Words, with a command between backticks kept as one.
const words = (text: string): string[] => text.match(/[^\s`]*`[^`]*`[^\s`]*|[^\s`]+/g) ?? [];

// Greedy word wrap to the quick width after a prefix, continuation lines two further in (than an indent; after a
// word such as "Found ", two in). A line holding a command is never cut: a word longer than the line stands alone.
function wrapped(text: string, prefix = '', width = QUICK_WIDTH): string[] {
  const out: string[] = [];
  let line = '';
  const indent = `${/^\s*$/.test(prefix) ? prefix : ''}  `;
  const lead = () => (out.length ? indent : prefix);
  const push = (l: string) => out.push(l.includes('`') ? l : fit(l, width));
  for (const w of words(text)) {
    if (line && `${lead()}${line} ${w}`.length > width) {
      push(`${lead()}${line}`);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) push(`${lead()}${line}`);
  return out;
}

const levels = (xs: readonly number[]): string =>
  xs.length > 3
    ? `${xs[0]}–${xs[xs.length - 1]}`
    : `${xs.slice(0, -1).join(', ')}${xs.length > 1 ? ' and ' : ''}${xs.at(-1)}`;

/**
 * The plan before it runs: "Measuring for about 33 s: 4K × 1–32 users, 16 and 32 over the KV cache." (those not run)
 * and the windows and answers, with why the answers are that long.
 */
export function quickPlanLines(p: QuickPlan): string[] {
  const over = p.plan.cells.filter((c) => c.status === 'Over capacity');
  const overContexts = [...new Set(over.map((c) => c.contextTokens))];
  const skipped =
    over.length === 0
      ? ''
      : overContexts.length === 1 && p.contexts.length === 1
        ? `, ${levels(over.map((c) => c.concurrency))} over the KV cache`
        : `, ${over.length} cells over the KV cache`;
  const windows = `${p.duration} s windows${p.repeats > 1 ? ` × ${p.repeats}` : ''}`;
  const each = `about ${Math.max(1, Math.round(p.perWindow))} a window`;
  const answers =
    p.answers === 'given'
      ? `answers of ${p.maxOutput} tokens (--max-output): one user ends ${each}`
      : p.answers === 'shortest'
        ? `answers of ${p.maxOutput} tokens, the shortest quick sends: one user ends ${each}`
        : `answers of ${p.maxOutput} tokens, so that one user ends ${each}`;
  return [
    ...wrapped(
      `Measuring for about ${p.estimateS} s: ${p.contexts.map(contextLabel).join(' and ')} × ` +
        `${levels(p.concurrency)} user${p.concurrency.length === 1 && p.concurrency[0] === 1 ? '' : 's'}${skipped}.`,
    ),
    ...wrapped(`${windows}; ${answers}.`, '  '),
  ];
}

/** "--concurrency 8,16 --duration 24 --max-output 240": quick's own flags, added to the command that printed it. */
export function decideFlags(d: DecideRun): string {
  return `--concurrency ${d.concurrency.join(',')} --duration ${d.duration} --max-output ${d.maxOutput}`;
}

export function quickAnswerLines(
  a: Answer,
  where: { report: string; result: string },
  whatIf: readonly WhatIfNote[] = [],
  ran?: { duration: number; repeats: number; maxOutput: number },
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
  // Levels too close to call: quick names the window that decides them (src/quick/decide.ts), in its own flags.
  const decide = ran && decideRun(a, ran);
  const decideLine = decide
    ? wrapped(
        `Change: to decide ${levels(decide.concurrency)} users, measure them longer: \`${decideFlags(decide)}\`.`,
        '  ',
      )
    : [];
  // The limit of the shortest context first: the one most users meet; a second context's only if it differs.
  const reasons: string[][] = [];
  const seen = new Set<string>();
  for (const c of a.contexts) {
    const open = decide !== undefined && c.reason.kind === 'undecided';
    const key = open ? 'decide' : c.reason.change;
    if (seen.has(key)) continue;
    seen.add(key);
    reasons.push([
      ...wrapped(`Why not more at ${contextLabel(c.contextTokens)}: ${c.reason.short}.`),
      ...(open ? decideLine : wrapped(`Change: ${c.reason.change}.`, '  ')),
    ]);
  }
  // Levels too close to call below a limit: the line that decides them right after the first reason.
  if (decide && !seen.has('decide')) reasons.splice(1, 0, decideLine);
  const lines = [...head, ...perContext];
  for (const r of reasons) if (lines.length + r.length + tail.length <= QUICK_MAX_LINES) lines.push(...r);
  for (const w of whatIf) {
    const l = wrapped(`What if (predicted): ${w.text}`, '  ');
    if (lines.length + l.length + tail.length <= QUICK_MAX_LINES) lines.push(...l);
  }
  return [...lines.slice(0, QUICK_MAX_LINES - tail.length), ...tail];
}
