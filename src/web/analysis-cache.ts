import { statSync } from 'node:fs';
import { analysisOf, type Analysis } from '../answer/analysis.js';
import type { RunResult, ServiceLevel } from '../results/schema.js';

// The analysis of each run `serve` shows, kept per result file (its path, size and modification time, as the index
// tells a changed file) and service level: the what-if's twin is most of a report page's cost, a second for the
// demo's result, and the file it is fitted from rarely changes (docs/serve.md "Where the data comes from"). The
// least recently used go first past `max`.
export class AnalysisCache {
  private readonly kept = new Map<string, Analysis>();
  constructor(private readonly max = 64) {}

  /** The analysis of `file` (whose result `load` reads) under `slo`, computed where this version of it has none. */
  get(
    file: string,
    load: () => RunResult,
    slo: ServiceLevel | undefined,
  ): { result: RunResult; analysis: Analysis } {
    const result = load(); // first: a file that is gone is the reader's error to word
    const key = version(file) + (slo ? JSON.stringify(slo) : '');
    const hit = this.kept.get(key);
    if (hit) {
      this.kept.delete(key); // to the end: the most recently used
      this.kept.set(key, hit);
      return { result, analysis: hit };
    }
    const analysis = analysisOf(result, slo);
    if (key.startsWith('\0')) return { result, analysis }; // no version to keep it under
    this.kept.set(key, analysis);
    while (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value!);
    return { result, analysis };
  }
}

// The file's version as the index reads it; empty where it cannot be read (then nothing is kept).
function version(file: string): string {
  try {
    const st = statSync(file);
    return `${file}\0${st.size}\0${st.mtimeMs}\0`;
  } catch {
    return '\0';
  }
}
