import { parseContextLabel } from '../format/labels.js';
import type { CellStatus } from './schema.js';

// A v0.6.2 text report states most figures twice: in the matrices at the top and in the All measurements table.
// Each row is checked against the matrix and, where one exists, a third opinion from the row itself (output
// tokens / measured time for decode, context / TTFT for prefill). What agrees is used; what does not is
// reported with the line it is on. A row missing from the table is rebuilt from the matrix.

export interface TableRow {
  phase: 'Prefill' | 'Sustained decode';
  contextTokens: number;
  concurrency: number;
  status: CellStatus;
  figures: Array<number | null>; // total, per request, ttft, tbt, active, completed, output, measured
  line: number; // 1-based
}

export interface MatrixFigure {
  phase: TableRow['phase'];
  contextTokens: number;
  concurrency: number;
  status: CellStatus;
  tokensPerS: number | null;
  tokStep: number; // the printed precision: 0.1, 1 or 100 (for "18.9K")
  ttftMs: number | null;
  line: number;
}

const NUM = String.raw`(\d{1,3}(?:,\d{3})*(?:\.\d)?|\d+(?:\.\d)?K)`;
const FIG = new RegExp(`^${NUM}(Requests queued)?(\\d{1,3}(?:,\\d{3})*) ms TTFT$`);

function figure(text: string): { tok: number; step: number; queued: boolean; ttft: number } | undefined {
  const m = FIG.exec(text.trim());
  if (!m) return undefined;
  const k = m[1]!.endsWith('K');
  const digits = m[1]!.replace(/[,K]/g, '');
  const tok = Number(digits) * (k ? 1000 : 1);
  const step = k ? 100 : digits.includes('.') ? 0.1 : 1;
  return { tok, step, queued: !!m[2], ttft: Number(m[3]!.replace(/,/g, '')) };
}

// "8K context18.9K433 ms TTFT" lines and the decode matrix's "| 8K | 175.8109 ms TTFT | ... |" rows.
export function matrixFigures(lines: readonly string[]): MatrixFigure[] {
  const out: MatrixFigure[] = [];
  let header: number[] | undefined;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    // The first prefill entry shares its line with the heading ("...by context length8K context18.9K...").
    const pre = /(\d+(?:\.\d+)?[KM]) context(.+ ms TTFT)$/.exec(line);
    if (pre) {
      const ctx = parseContextLabel(pre[1]!);
      const f = figure(pre[2]!);
      if (ctx !== undefined && f)
        out.push({
          phase: 'Prefill',
          contextTokens: ctx,
          concurrency: 1,
          status: 'Valid',
          tokensPerS: f.tok,
          tokStep: f.step,
          ttftMs: f.ttft,
          line: i + 1,
        });
      return;
    }
    const cells = line.includes('|') ? line.split('|').map((c) => c.trim()) : [];
    const head = cells.indexOf('Context');
    if (head >= 0 && cells[head + 1] === '1') {
      header = cells
        .slice(head + 1)
        .filter(Boolean)
        .map(Number);
      return;
    }
    const ctx = cells.length > 2 ? parseContextLabel(cells[1]!) : undefined;
    if (!header || ctx === undefined) return;
    cells.slice(2, 2 + header.length).forEach((c, j) => {
      const n = header![j]!;
      const base = {
        phase: 'Sustained decode' as const,
        contextTokens: ctx,
        concurrency: n,
        tokStep: 0.1,
        line: i + 1,
      };
      if (c === 'Over capacity')
        out.push({ ...base, status: 'Over capacity', tokensPerS: null, ttftMs: null });
      const f = figure(c);
      if (f)
        out.push({
          ...base,
          status: f.queued ? 'Requests queued' : 'Valid',
          tokensPerS: f.tok,
          tokStep: f.step,
          ttftMs: f.ttft,
        });
    });
  });
  return out;
}

const agrees = (a: number, b: number, step: number) => Math.abs(a - b) <= step / 2 + 1e-9;
const close = (a: number, b: number) => Math.abs(a - b) <= 0.02 * Math.max(Math.abs(a), Math.abs(b));
const fmt = (n: number) => String(Math.round(n * 10) / 10);
const cellName = (r: { phase: string; contextTokens: number; concurrency: number }, label: string) =>
  r.phase === 'Prefill' ? `prefill ${label}` : `${label} × ${r.concurrency}`;

// The row's own third opinion on its tok/s.
function ownTokS(r: TableRow): number | undefined {
  const [, , ttft, , , , output, measured] = r.figures;
  if (r.phase === 'Prefill') return ttft ? (r.contextTokens * 1000) / ttft : undefined;
  return output && measured ? output / measured : undefined;
}

export function crossCheck(
  rows: readonly TableRow[],
  matrix: readonly MatrixFigure[],
  label: (ctx: number) => string,
): { rows: TableRow[]; warnings: string[] } {
  const warnings: string[] = [];
  const out = rows.map((r) => ({ ...r, figures: [...r.figures] }));
  for (const m of matrix) {
    const name = cellName(m, label(m.contextTokens));
    const r = out.find(
      (x) => x.phase === m.phase && x.contextTokens === m.contextTokens && x.concurrency === m.concurrency,
    );
    if (!r) {
      if (m.tokensPerS === null && m.status !== 'Over capacity') continue;
      out.push({
        phase: m.phase,
        contextTokens: m.contextTokens,
        concurrency: m.concurrency,
        status: m.status,
        figures: [m.tokensPerS, null, m.ttftMs, null, null, null, null, null],
        line: m.line,
      });
      warnings.push(
        `line ${m.line} (${name}): All measurements has no row for it; used the matrix` +
          (m.tokensPerS !== null ? ` (${fmt(m.tokensPerS)} tok/s, TTFT ${m.ttftMs} ms)` : ` (${m.status})`),
      );
      continue;
    }
    if (r.status !== m.status && m.status !== 'Valid')
      warnings.push(
        `line ${r.line} (${name}): status ${r.status} in All measurements, ${m.status} in the matrix (line ${m.line}); kept ${r.status}`,
      );
    const tok = r.figures[0];
    if (m.tokensPerS !== null && tok != null && !agrees(tok, m.tokensPerS, m.tokStep)) {
      const own = ownTokS(r);
      const useMatrix = own !== undefined && close(own, m.tokensPerS) && !close(own, tok);
      if (useMatrix) r.figures[0] = m.tokensPerS;
      const third =
        own !== undefined
          ? `, ${r.phase === 'Prefill' ? 'context / TTFT' : 'output tokens / measured time'} gives ${fmt(own)}`
          : '';
      warnings.push(
        `line ${r.line} (${name}): total tok/s ${fmt(tok)} in All measurements, ${fmt(m.tokensPerS)} in the matrix (line ${m.line})${third}; used ${fmt(r.figures[0]!)}`,
      );
    }
    const ttft = r.figures[2];
    if (m.ttftMs !== null && ttft != null && !agrees(ttft, m.ttftMs, 1))
      warnings.push(
        `line ${r.line} (${name}): TTFT ${fmt(ttft)} ms in All measurements, ${m.ttftMs} ms in the matrix (line ${m.line}); kept the table's`,
      );
  }
  return { rows: out, warnings };
}

// GPU count: the metadata value, the VRAM breakdown ("564 GB (4 × 141 GB)") and the title ("... ×4") each say it.
export function gpuCountCheck(
  lines: readonly string[],
  stated: string | undefined,
  vram: string | undefined,
): { count?: number; warning?: string } {
  const at = lines.indexOf('- GPU count');
  const line = at >= 0 ? at + 2 : undefined;
  const own = stated !== undefined && /^\d+$/.test(stated.trim()) ? Number(stated.trim()) : undefined;
  const fromVram = vram ? Number(/\(\s*(\d+)\s*×/.exec(vram)?.[1] ?? NaN) : NaN;
  const fromTitle = Number(/×\s*(\d+)\s*$/.exec(lines[1] ?? '')?.[1] ?? NaN);
  const others = [fromVram, fromTitle].filter((n) => Number.isInteger(n) && n > 0);
  if (own !== undefined && (others.length === 0 || others.includes(own))) return { count: own };
  const where = line !== undefined ? `line ${line}` : 'Hardware';
  if (others.length === 0)
    return {
      warning: `${where} (GPU count "${stated ?? ''}"): not a number and nothing else states it; left out`,
    };
  const count = others[0]!;
  const said = own === undefined ? `"${stated ?? ''}" is not a number` : `${own} disagrees`;
  return {
    count,
    warning: `${where} (GPU count): ${said}; used ${count} from ${Number.isInteger(fromVram) && fromVram === count ? 'the VRAM breakdown' : 'the title'}`,
  };
}
