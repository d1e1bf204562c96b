import { readFileSync, type Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { RESULT_FILE, writeFileAtomic } from '../results/io.js';
import { SWEEP_FILE } from '../results/sweep-schema.js';
import { parseJsonAs } from '../results/read.js';
import { fsError } from '../fs-errors.js';
import { IndexedResult, runEntry, type RunEntry } from './run-entry.js';
import type { ServiceLevel } from '../results/schema.js';
import { formatServiceLevel } from '../stats/slo.js';

// The in-memory index of result folders under the served roots. A refresh walks the folders and stats each
// result.json; only new or changed files (mtime or size) are read again, so a refresh over thousands of runs
// costs a directory walk, done asynchronously so pages keep answering from memory meanwhile. An optional cache file keeps the entries across restarts.

// A sweep folder under a root (its sweep.json): its runs are indexed as runs too, under `<id>/<run key>`.
export interface SweepRef {
  id: string; // the folder relative to the served root, as a run's id
  dir: string; // absolute
}

export interface IndexProblem {
  file: string;
  message: string;
}

export interface RunIndexOptions {
  roots: string[];
  cacheFile?: string;
  maxDepth?: number; // folders below a root that are searched for result.json (default 6)
  now?: () => number;
  refreshEveryMs?: number; // a listing within this time of the last walk reuses it (default 1000)
  slo?: ServiceLevel; // serve --slo: the level each run's answer is judged by (else the run's own, else the default)
}

// 2: cells say when their stream was held back on the way (held); 3: each run's answer (users at once); 4: its
// answer in requests per second; 5: rows of a workload or a trace without rates answered too
const CACHE_VERSION = 5;

interface CacheFile {
  version: number;
  slo: string; // the --slo the answers were judged by ('' for none): another one judges them again
  entries: RunEntry[];
}

/** The indexed part of a result file; a one-line error naming the file and the first problem otherwise. */
export function readIndexed(file: string): IndexedResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw fsError('RESULT_INVALID', `cannot read ${file}`, e); // removed between the scan and the read
  }
  return parseJsonAs(IndexedResult, text, file);
}

export class RunIndex {
  private readonly roots: string[];
  private readonly byFile = new Map<string, RunEntry>();
  private sweepRefs: SweepRef[] = [];
  private readonly failed = new Map<string, IndexProblem & { mtimeMs: number; size: number }>();
  private sorted: RunEntry[] | undefined;
  private lastWalk = -Infinity;
  private walking: Promise<unknown> | undefined;
  private readonly now: () => number;

  constructor(private readonly opts: RunIndexOptions) {
    this.roots = opts.roots.map((r) => resolve(r));
    this.now = opts.now ?? (() => performance.now());
    if (opts.cacheFile) this.loadCache(opts.cacheFile);
  }

  /**
   * Every run, newest first. The first call waits for a whole walk; later ones answer from memory and, when
   * the last walk is older than refreshEveryMs, start another in the background: a listing never waits for
   * the disk, and a new run shows on a load a moment later.
   */
  async runs(): Promise<RunEntry[]> {
    if (this.lastWalk === -Infinity) await this.refresh();
    else if (!this.walking && this.now() - this.lastWalk >= (this.opts.refreshEveryMs ?? 1000))
      void this.refresh();
    this.sorted ??= [...this.byFile.values()].sort(
      (a, b) => b.startedAt.localeCompare(a.startedAt) || a.id.localeCompare(b.id),
    );
    return this.sorted;
  }

  async get(id: string): Promise<RunEntry | undefined> {
    return (await this.runs()).find((e) => e.id === id);
  }

  /** The sweep folders found by the last walk, by id. */
  async sweeps(): Promise<SweepRef[]> {
    await this.runs();
    return this.sweepRefs;
  }

  problems(): IndexProblem[] {
    return [...this.failed.values()].map(({ file, message }) => ({ file, message }));
  }

  /** Walks the roots now (or joins the walk in progress). */
  refresh(): Promise<{ added: number; changed: number; removed: number }> {
    const walk =
      (this.walking as Promise<{ added: number; changed: number; removed: number }>) ?? this.walk();
    this.walking = walk;
    return walk.finally(() => {
      if (this.walking === walk) this.walking = undefined;
    });
  }

  private async walk(): Promise<{ added: number; changed: number; removed: number }> {
    const seen = new Set<string>();
    const sweeps: SweepRef[] = [];
    let added = 0;
    let changed = 0;
    for (const [ri, root] of this.roots.entries()) {
      for await (const file of this.findResults(root)) {
        if (file.endsWith(SWEEP_FILE)) {
          sweeps.push({ id: this.idOf(root, ri, file), dir: dirname(file) });
          continue;
        }
        seen.add(file);
        let st;
        try {
          st = await stat(file);
        } catch {
          continue; // removed between the walk and the stat
        }
        const id = this.idOf(root, ri, file);
        const old = this.byFile.get(file);
        if (old && old.mtimeMs === st.mtimeMs && old.size === st.size) {
          if (old.id !== id) {
            old.id = id; // a cache written with other roots
            this.sorted = undefined;
          }
          continue;
        }
        const bad = this.failed.get(file);
        if (bad && bad.mtimeMs === st.mtimeMs && bad.size === st.size) continue;
        this.sorted = undefined;
        try {
          const r = readIndexed(file);
          this.byFile.set(file, runEntry(r, { id, file, mtimeMs: st.mtimeMs, size: st.size }, this.opts.slo));
          this.failed.delete(file);
          if (old) changed++;
          else added++;
        } catch (e) {
          // A run being written, or not a result of this tool: listed as a problem, read again when it changes.
          this.byFile.delete(file);
          this.failed.set(file, { file, message: (e as Error).message, mtimeMs: st.mtimeMs, size: st.size });
        }
      }
    }
    let removed = 0;
    for (const file of [...this.byFile.keys()])
      if (!seen.has(file)) {
        this.byFile.delete(file);
        this.sorted = undefined;
        removed++;
      }
    for (const file of [...this.failed.keys()]) if (!seen.has(file)) this.failed.delete(file);
    this.sweepRefs = sweeps.sort((a, b) => b.id.localeCompare(a.id));
    this.lastWalk = this.now();
    if (this.opts.cacheFile && (added || changed || removed)) this.saveCache(this.opts.cacheFile);
    return { added, changed, removed };
  }

  private idOf(root: string, ri: number, file: string): string {
    const rel = relative(root, join(file, '..')).split(sep).join('/') || '.';
    return this.roots.length > 1 ? `${ri + 1}/${rel}` : rel;
  }

  private async *findResults(root: string): AsyncGenerator<string> {
    const maxDepth = this.opts.maxDepth ?? 6;
    const stack: Array<[string, number]> = [[root, 0]];
    while (stack.length) {
      const [dir, depth] = stack.pop()!;
      let items: Dirent[];
      try {
        items = await readdir(dir, { withFileTypes: true });
      } catch {
        continue; // unreadable or gone
      }
      for (const d of items) {
        if (d.isFile() && (d.name === RESULT_FILE || d.name === SWEEP_FILE)) yield join(dir, d.name);
        else if (d.isDirectory() && depth < maxDepth && !d.name.startsWith('.') && d.name !== 'node_modules')
          stack.push([join(dir, d.name), depth + 1]);
      }
    }
  }

  private sloKey(): string {
    return this.opts.slo ? formatServiceLevel(this.opts.slo) : '';
  }

  private loadCache(path: string): void {
    let data: CacheFile;
    try {
      data = JSON.parse(readFileSync(path, 'utf8')) as CacheFile;
    } catch {
      return; // no cache yet, or a broken one: the walk rebuilds it
    }
    if (data.version !== CACHE_VERSION || data.slo !== this.sloKey() || !Array.isArray(data.entries)) return;
    for (const e of data.entries) if (typeof e?.file === 'string') this.byFile.set(e.file, e);
  }

  private saveCache(path: string): void {
    const data: CacheFile = {
      version: CACHE_VERSION,
      slo: this.sloKey(),
      entries: [...this.byFile.values()],
    };
    try {
      writeFileAtomic(path, JSON.stringify(data));
    } catch {
      // the cache only saves time; the index in memory is complete without it
    }
  }
}
