// Benchmark output: a fixed-width table on stdout and the full JSON in bench/out/<name>-<time>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

export const OUT_DIR = fileURLToPath(new URL('../out/', import.meta.url));

export function table(rows: Array<Record<string, string | number | null | undefined>>): string {
  if (rows.length === 0) return '(no rows)\n';
  const cols = Object.keys(rows[0]!);
  const cell = (v: unknown) =>
    v === null || v === undefined
      ? '-'
      : typeof v === 'number'
        ? String(Math.round(v * 1000) / 1000)
        : String(v);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padStart(width[i]!)).join('  ');
  return [
    line(cols),
    line(width.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(cols.map((c) => cell(r[c])))),
  ]
    .join('\n')
    .concat('\n');
}

export function machine(): Record<string, unknown> {
  return {
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    platform: process.platform,
  };
}

export function writeOut(name: string, data: unknown): string {
  mkdirSync(OUT_DIR, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const path = `${OUT_DIR}${name}-${stamp}.json`;
  writeFileSync(
    path,
    JSON.stringify(
      { bench: name, at: new Date().toISOString(), machine: machine(), ...(data as object) },
      null,
      2,
    ),
  );
  return path;
}

export const quantile = (xs: number[], q: number): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
};

// The benchmarks measure latency on a shared machine: raise this process's priority (its children inherit it)
// where allowed (nice -10), and report the load they ran under. Not SCHED_FIFO: under a real-time policy the
// sim child, started through tsx's loader thread, was seen spinning a core instead of starting.
export function boostPriority(): { nice: number | null; loadAvg1m: number } {
  let nice: number | null;
  try {
    os.setPriority(0, -10);
    nice = os.getPriority(0);
  } catch {
    nice = null;
  }
  return { nice, loadAvg1m: os.loadavg()[0] ?? 0 };
}
