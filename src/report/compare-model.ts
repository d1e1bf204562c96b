import type { DecodeCell, PrefillPoint, RunResult, ServiceLevel } from '../results/schema.js';
import { answerOf } from '../answer/answer.js';
import { compareAnswer, type CompareAnswer } from './answer-view.js';
import { contextLabel } from '../format/index.js';
import { alignedPrefillContexts, findPrefill } from './full-window.js';
import { cellMap, metadata, reportTitle, sortedUnique } from './model.js';
import { cellKey, isMeasured, shortStatus } from '../cell-rules.js';

// What every compare renderer shows: runs labelled A, B, C..., the union of their cells, ratios to A.
export interface CompareRun {
  label: string;
  title: string;
  result: RunResult;
  cells: Map<string, DecodeCell>;
}

export interface CompareModel {
  runs: CompareRun[];
  contexts: number[];
  concurrency: number[];
  prefillContexts: number[];
  metaDiffs: Array<{ field: string; values: string[] }>;
}

export const runLabel = (i: number) =>
  String.fromCharCode(65 + (i % 26)) + (i >= 26 ? String(Math.floor(i / 26)) : '');

const measurable = (c: DecodeCell | undefined): c is DecodeCell =>
  !!c && isMeasured(c.status) && c.totalTokensPerS !== null && c.totalTokensPerS > 0;

/** B/A total tok/s for one cell, when both runs measured it. */
export function cellRatio(a: DecodeCell | undefined, b: DecodeCell | undefined): number | undefined {
  return measurable(a) && measurable(b) ? b.totalTokensPerS! / a.totalTokensPerS! : undefined;
}

export function prefillRatio(a: PrefillPoint | undefined, b: PrefillPoint | undefined): number | undefined {
  return a?.tokensPerS && b?.tokensPerS ? b.tokensPerS / a.tokensPerS : undefined;
}

/** Why a ratio is missing, in two words. */
export function missingReason(
  a: DecodeCell | undefined,
  b: DecodeCell | undefined,
  la: string,
  lb: string,
): string {
  if (!a && !b) return '';
  const bad = (c: DecodeCell) => (c.status === 'Over capacity' ? shortStatus(c.status) : 'failed');
  // A cell one run skipped is that run's verdict, not a measurement only it has.
  if (!a) return measurable(b) ? `only ${lb}` : `${lb} ${bad(b!)}`;
  if (!b) return measurable(a) ? `only ${la}` : `${la} ${bad(a)}`;
  if (a.status === 'Over capacity' && b.status === 'Over capacity') return shortStatus(a.status);
  return !measurable(a) ? `${la} ${bad(a)}` : `${lb} ${bad(b)}`;
}

export const LAUNCH_COMMAND_FIELD = 'Launch command';

function configRows(r: RunResult): Array<[string, string]> {
  const c = r.config;
  return [
    ['Config · contexts', c.contexts.map(contextLabel).join(', ')],
    ['Config · concurrency', c.concurrency.join(', ')],
    ['Config · prefill contexts', c.prefillContexts.map(contextLabel).join(', ')],
    ['Config · sampling', JSON.stringify(c.sampling)],
    [LAUNCH_COMMAND_FIELD, r.launchCommand ?? ''],
  ];
}

/** Each run's users at once under `slo` (else its own level): the answer `compare` shows first, judged once. */
export function compareAnswerOf(m: CompareModel, slo?: ServiceLevel): CompareAnswer {
  return compareAnswer(m.runs.map((r) => ({ label: r.label, answer: answerOf(r.result, slo) })));
}

export function compareModel(results: RunResult[]): CompareModel {
  const runs = results.map((result, i) => ({
    label: runLabel(i),
    title: reportTitle(result),
    result,
    cells: cellMap(result),
  }));
  const fields = new Map<string, string[]>();
  results.forEach((r, i) => {
    const rows = [
      ...metadata(r).flatMap((s) => s.rows.map(([k, v]) => [`${s.name} · ${k}`, v] as [string, string])),
      ...configRows(r),
    ];
    for (const [k, v] of rows) {
      if (k === 'Run · Run id' || k === 'Run · Started') continue;
      const vals = fields.get(k) ?? Array<string>(results.length).fill('');
      vals[i] = v;
      fields.set(k, vals);
    }
  });
  // A prediction or an imported report without a field does not know it (a twin carries what its fit kept, a
  // v0.6.2 report printed no API or sampling): not a difference.
  const unknowing = (r: RunResult) => !!r.predicted || r.status === 'imported';
  const known = (vals: string[]) => vals.filter((v, i) => v !== '' || !unknowing(results[i]!));
  const metaDiffs = [...fields.entries()]
    .filter(([, vals]) => new Set(known(vals)).size > 1)
    .map(([field, values]) => ({ field, values }));
  return {
    runs,
    contexts: sortedUnique(results.flatMap((r) => r.decode.map((c) => c.contextTokens))),
    concurrency: sortedUnique(results.flatMap((r) => r.decode.map((c) => c.concurrency))),
    prefillContexts: alignedPrefillContexts(results),
    metaDiffs,
  };
}

export { findPrefill };
export const getCell = (run: CompareRun, ctx: number, n: number) => run.cells.get(cellKey(ctx, n));

/** "A has 8 GPUs, B has 4: per GPU, B's ratios are 2.00× what is shown." when GPU counts differ. */
export function gpuNote(a: CompareRun, b: CompareRun): string {
  const ga = a.result.hardware.gpuCount;
  const gb = b.result.hardware.gpuCount;
  if (!ga || !gb || ga === gb) return '';
  return `${a.label} has ${ga} GPUs, ${b.label} has ${gb}: per GPU, multiply these ratios by ${(ga / gb).toFixed(2)}.`;
}

// A model served under an organisation's prefix or in other case is the same model ("zai-org/GLM-5.3-Flash" and
// "glm-5.3-flash"): a --served-model-name alias is not a difference.
const modelName = (m: string) => m.split('/').pop()!.trim().toLowerCase();

/**
 * One line when B is not a like-for-like rerun of A (docs/report.md "Sections"): another model, or both another
 * engine and other GPUs, so no ratio isolates one change. Only what both runs know is compared.
 */
export function notLikeForLike(a: CompareRun, b: CompareRun): string {
  const differ = (f: (r: RunResult) => string | undefined, same = (x: string) => x) => {
    const [va, vb] = [f(a.result), f(b.result)];
    return va && vb && same(va) !== same(vb) ? { a: va, b: vb } : undefined;
  };
  const model = differ((r) => r.target.model, modelName);
  const engine = differ((r) => r.engine.name);
  const gpu = differ((r) => r.hardware.gpuName);
  if (!model && !(engine && gpu)) return '';
  const parts = [
    model && ['model', `served another model (${model.b}; ${a.label}: ${model.a})`],
    engine && ['engine', `with another engine (${engine.b}; ${a.label}: ${engine.a})`],
    gpu && ['GPUs', `on other GPUs (${gpu.b}; ${a.label}: ${gpu.a})`],
  ].filter((x): x is string[] => !!x);
  const names = parts.map(([n]) => n!);
  const which = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0];
  return (
    `Not like for like: ${b.label} ${parts.map(([, t]) => t).join(', ')}; every ${b.label}/${a.label} ratio ` +
    `includes the change of ${which}.`
  );
}

/** The not-like-for-like line of every run against A (text, md and html say them under the runs). */
export const notLikeForLikeLines = (m: CompareModel): string[] =>
  m.runs
    .slice(1)
    .map((b) => notLikeForLike(m.runs[0]!, b))
    .filter(Boolean);

/** Which runs had Requests queued in this cell: "" | "A" | "B" | "A, B" (the mark the ratio matrices carry). */
export function queuedIn(
  a: DecodeCell | undefined,
  b: DecodeCell | undefined,
  la: string,
  lb: string,
): string {
  return [a?.status === 'Requests queued' ? la : '', b?.status === 'Requests queued' ? lb : '']
    .filter(Boolean)
    .join(', ');
}
