import { createHash } from 'node:crypto';
import { resultHeader } from './header.js';
import { BenchError } from '../errors.js';
import { contextLabel, parseContextLabel } from '../format/labels.js';
import { crossCheck, gpuCountCheck, matrixFigures, type TableRow } from './import-crosscheck.js';
import type { CellStatus, DecodeCell, Hardware, PrefillPoint, RunResult } from './schema.js';
import { RunResult as RunResultSchema } from './schema.js';
import { CELL_STATUSES, DEFAULT_MAX_OUTPUT } from '../cell-rules.js';

// Reads the text form of a llm-inference-bench v0.6.2 report (the seeds). The matrix cells concatenate
// figures ("108.1114 ms TTFT"), so the "All measurements" table is the source of every number.

const DASH = '—';

/** `9,835.0` → 9835, `10.7K` → 10700, `833 ms` → 833, `30.0 s` → 30, `—` → null. */
export function parseFigure(text: string): number | null {
  const t = text.trim();
  if (t === DASH || t === '-' || t === '') return null;
  const m = /^(-?[\d,]*\.?\d+)\s*(K|M|G)?\s*(ms|s|tokens)?$/.exec(t);
  if (!m) throw new BenchError('RESULT_INVALID', `not a v0.6.2 report: cannot read the figure "${t}".`);
  const scale = m[2] === 'K' ? 1e3 : m[2] === 'M' ? 1e6 : m[2] === 'G' ? 1e9 : 1;
  return Math.round(Number(m[1]!.replace(/,/g, '')) * scale * 1000) / 1000;
}

function parseStatus(text: string): CellStatus {
  const s = text.trim();
  if ((CELL_STATUSES as readonly string[]).includes(s)) return s as CellStatus;
  throw new BenchError('RESULT_INVALID', `not a v0.6.2 report: unknown status "${s}".`);
}

/** "- Key" / "- Value" pairs of one metadata block; a value may lack its "- " (the seeds' Commit). */
function block(lines: string[], name: string, next: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const start = lines.indexOf(name);
  if (start < 0) return out;
  let i = start + 1;
  while (i < lines.length && !next.includes(lines[i]!)) {
    const key = lines[i]!;
    const value = lines[i + 1];
    if (!key.startsWith('- ') || value === undefined || next.includes(value)) break;
    out.set(key.slice(2).trim(), value.replace(/^- /, '').trim());
    i += 2;
  }
  return out;
}

const int = (v: string | undefined): number | undefined => {
  if (!v) return undefined;
  const n = Number(v.replace(/[^\d.]/g, ''));
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

function hardware(m: Map<string, string>, gpuCount: number | undefined): Hardware {
  const vram = m.get('VRAM');
  const total = vram ? /^([\d,.]+)\s*GB/.exec(vram) : null;
  const each = vram ? /×\s*([\d,.]+)\s*GB/.exec(vram) : null;
  return {
    type: m.get('Type'),
    gpuName: m.get('GPU'),
    gpuCount: gpuCount === undefined ? undefined : Math.round(gpuCount),
    gpuMemoryGb: each ? Number(each[1]!.replace(/,/g, '')) : undefined,
    gpuMemoryGbTotal: total ? Number(total[1]!.replace(/,/g, '')) : undefined,
    os: m.get('OS'),
    source: 'imported',
  };
}

type Row = TableRow;

function measurementRows(lines: string[]): Row[] {
  const rows: Row[] = [];
  for (const [i, line] of lines.entries()) {
    if (!/^\|\s*(Prefill|Sustained decode)\s*\|/.test(line)) continue;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells.length !== 12)
      throw new BenchError(
        'RESULT_INVALID',
        `not a v0.6.2 report: a measurement row has ${cells.length} columns, not 12.`,
      );
    const ctx = parseContextLabel(cells[1]!);
    const n = Number(cells[2]);
    if (ctx === undefined || !Number.isInteger(n) || n < 1)
      throw new BenchError('RESULT_INVALID', `not a v0.6.2 report: bad context or concurrency in "${line}".`);
    rows.push({
      phase: cells[0] as Row['phase'],
      contextTokens: ctx,
      concurrency: n,
      status: parseStatus(cells[3]!),
      figures: cells.slice(4).map(parseFigure),
      line: i + 1,
    });
  }
  return rows;
}

function launchCommand(text: string): string | undefined {
  const m = /\nLaunch command\n([\s\S]*?)\n?Prefill\nprompt tok\/s/.exec(text);
  const cmd = m?.[1]?.trim();
  return cmd ? cmd : undefined;
}

// The table rows as the result's prefill points and decode cells.
function measurements(rows: readonly Row[]) {
  const decodeRows = rows.filter((r) => r.phase === 'Sustained decode');
  const decodeCtx = new Set(decodeRows.map((r) => r.contextTokens));
  const prefill: PrefillPoint[] = rows
    .filter((r) => r.phase === 'Prefill')
    .map((r) => ({
      contextTokens: r.contextTokens,
      status: r.status,
      promptTokens: null,
      ttftMs: r.figures[2] ?? null,
      tokensPerS: r.figures[0] ?? null,
      completed: r.figures[5] ?? 0,
      repeats: [],
      decodeContext: decodeCtx.has(r.contextTokens),
    }));
  const decode: DecodeCell[] = decodeRows.map((r) => {
    const [total, perReq, ttft, tbt, active, completed, output, measured] = r.figures;
    return {
      contextTokens: r.contextTokens,
      concurrency: r.concurrency,
      status: r.status,
      totalTokensPerS: total ?? null,
      perRequestTokensPerS: perReq ?? null,
      ttftMs: ttft ?? null,
      tbtMs: tbt ?? null,
      avgActive: active ?? null,
      completed: completed ?? null,
      outputTokens: output ?? null,
      measuredS: measured ?? null,
    };
  });
  return { decodeRows, decodeCtx, prefill, decode };
}

/** The report's lines, refused unless it has the v0.6.2 title and measurements table. */
function reportLines(normalized: string): string[] {
  const lines = normalized.split('\n').map((l) => l.trimEnd());
  if (lines[0]?.trim() !== 'Speed test matrix' || !lines.some((l) => l.startsWith('All measurements')))
    throw new BenchError(
      'RESULT_INVALID',
      'not a v0.6.2 text report: expected "Speed test matrix" on the first line and an "All measurements" table.',
      { hint: 'Copy the whole report page as text (select all, copy) into a file.' },
    );
  return lines;
}

function engineOf(eng: Map<string, string>) {
  return {
    name: eng.get('Engine') ?? 'unknown',
    version: eng.get('Version'),
    commit: eng.get('Commit'),
    build: eng.get('Build'),
    quantization: eng.get('Quantization'),
    backend: eng.get('Backend'),
    repository: eng.get('Repository'),
    detectedBy: 'imported',
  };
}

function validated(result: unknown): RunResult {
  const parsed = RunResultSchema.safeParse(result);
  if (!parsed.success)
    throw new BenchError(
      'RESULT_INVALID',
      `imported report does not validate: ${parsed.error.issues[0]?.message}`,
    );
  return parsed.data;
}

export function importV062Text(text: string): RunResult {
  const normalized = text.replace(/\r\n?/g, '\n');
  const lines = reportLines(normalized);
  const checked = crossCheck(measurementRows(lines), matrixFigures(lines), contextLabel);
  const rows = checked.rows;
  if (!rows.length)
    throw new BenchError('RESULT_INVALID', 'not a v0.6.2 report: the "All measurements" table is empty.');

  const hw = block(lines, 'Hardware', ['Engine', 'Run', 'Launch command']);
  const gpus = gpuCountCheck(lines, hw.get('GPU count'), hw.get('VRAM'));
  const eng = block(lines, 'Engine', ['Run', 'Launch command']);
  const run = block(lines, 'Run', ['Launch command', 'Prefill']);
  const tool = /^(.*?)\s+v(\S+)$/.exec(run.get('Benchmark tool') ?? '');
  const cmd = launchCommand(normalized);
  const maxModelLen = cmd ? int(/--max-model-len[ =](\d+)/.exec(cmd)?.[1]) : undefined;

  const { decodeRows, decodeCtx, prefill, decode } = measurements(rows);
  const sorted = (xs: Iterable<number>) => [...new Set(xs)].sort((a, b) => a - b);
  const duration = int(run.get('Time per measurement')) ?? 30;

  const result = {
    ...resultHeader({
      runId: `imported-${createHash('sha256').update(normalized).digest('hex').slice(0, 12)}`,
      tool: { name: tool?.[1] ?? 'llm-inference-bench', version: tool?.[2] ?? '0.6.2' },
      status: 'imported',
      startedAt: '',
      decodeTest: run.get('Decode test'),
      prefillMode: run.get('Prefill mode'),
    }),
    title: lines[1]?.trim() || undefined,
    target: {
      baseUrl: '',
      model: run.get('Served model') ?? 'unknown',
      revision: run.get('Revision'),
      api: 'chat',
      maxModelLen,
      metricsAvailable: false,
    },
    engine: engineOf(eng),
    hardware: hardware(hw, gpus.count),
    launchCommand: cmd,
    config: {
      contexts: sorted(decodeCtx),
      prefillContexts: sorted(prefill.map((p) => p.contextTokens)),
      concurrency: sorted(decodeRows.map((r) => r.concurrency)),
      maxOutput: int(run.get('Max output')) ?? DEFAULT_MAX_OUTPUT,
      duration,
      prefillRepeats: 1,
      ignoreEos: true,
      sampling: {},
      seed: 0,
    },
    prefill,
    decode,
    warnings: [
      'Imported from a v0.6.2 text report: figures carry the precision printed there (e.g. 10.7K tok/s); ' +
        'percentiles, errors, server samples and sampling settings were not recorded.',
      ...checked.warnings,
      ...(gpus.warning ? [gpus.warning] : []),
    ],
  };
  return validated(result);
}
