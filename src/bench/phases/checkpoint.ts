import { join } from 'node:path';
import type { Plan } from '../../plan/plan.js';
import { decodeKey, parseCellKey } from '../../results/cell-key.js';
import { REQUEST_LOG_FILE, appendRequestLines, keepRequestLines, writeResult } from '../../results/io.js';
import type { DecodeCell, LoadLevel, PrefillPoint, RateSearch, RunResult } from '../../results/schema.js';
import { toRequestLine, type Sent } from '../drive/sender.js';

// The run's state on disk: it owns the result, saves it atomically after every finished point, cell or load level
// (with its rate search's step), and keeps requests.jsonl to the finished ones (a cell or level cut by a kill or
// Ctrl-C is measured again on resume).
export class Checkpoint {
  readonly resultPath: string;
  private readonly prefillDone: Map<number, PrefillPoint>;
  private readonly cellsDone: Map<string, DecodeCell>;
  private readonly levelsDone: Map<string, LoadLevel>;
  private readonly logPath: string;
  private readonly order: Map<string, number>;

  constructor(
    readonly dir: string,
    readonly result: RunResult,
    plan: Plan,
  ) {
    delete result.error;
    this.prefillDone = new Map(result.prefill.map((p) => [p.contextTokens, p]));
    this.cellsDone = new Map(result.decode.map((c) => [decodeKey(c.contextTokens, c.concurrency), c]));
    this.levelsDone = new Map((result.levels ?? []).map((l) => [l.key, l]));
    this.order = new Map(plan.cells.map((c, i) => [decodeKey(c.contextTokens, c.concurrency), i]));
    this.logPath = join(dir, REQUEST_LOG_FILE);
    // A load level's lines are keyed by the level's key (levelKey, src/cell-rules.ts).
    const bad = keepRequestLines(this.logPath, (cell) => {
      const k = parseCellKey(cell);
      if (k?.kind === 'decode') return this.hasCell(k.contextTokens, k.concurrency);
      if (k?.kind === 'prefill') return this.hasPrefill(k.contextTokens);
      return this.hasLevel(cell);
    });
    if (bad[0])
      this.warn(
        `${REQUEST_LOG_FILE}: ${bad.length} line${bad.length > 1 ? 's' : ''} that did not read dropped on ` +
          `resume (line ${bad[0].line}: ${bad[0].why})`,
      );
    this.resultPath = this.save();
  }

  hasPrefill(ctx: number): boolean {
    return this.prefillDone.has(ctx);
  }

  hasCell(ctx: number, n: number): boolean {
    return this.cellsDone.has(decodeKey(ctx, n));
  }

  hasLevel(key: string): boolean {
    return this.levelsDone.has(key);
  }

  level(key: string): LoadLevel | undefined {
    return this.levelsDone.get(key);
  }

  get levels(): LoadLevel[] {
    return [...this.levelsDone.values()];
  }

  // A rate search's record as stored (per row), or undefined before its first step.
  search(row: string): RateSearch | undefined {
    return this.result.rateSearch?.find((x) => x.row === row);
  }

  get prefillCount(): number {
    return this.prefillDone.size;
  }

  get cells(): DecodeCell[] {
    return [...this.cellsDone.values()];
  }

  addPrefill(point: PrefillPoint): void {
    this.prefillDone.set(point.contextTokens, point);
    this.result.prefill.push(point);
    this.save();
  }

  addCell(cell: DecodeCell): void {
    this.cellsDone.set(decodeKey(cell.contextTokens, cell.concurrency), cell);
    this.result.decode.push(cell);
    this.save();
  }

  // A finished level, saved with its rate search's record when it was the search's step: both or neither reach disk.
  addLevel(level: LoadLevel, search?: RateSearch): void {
    this.levelsDone.set(level.key, level);
    (this.result.levels ??= []).push(level);
    if (search) this.setSearch(search);
    this.save();
  }

  // A search's record on its own (its end, when no step is left to measure).
  saveSearch(search: RateSearch): void {
    this.setSearch(search);
    this.save();
  }

  private setSearch(search: RateSearch): void {
    const all = (this.result.rateSearch ??= []);
    const i = all.findIndex((x) => x.row === search.row);
    if (i >= 0) all[i] = search;
    else all.push(search);
  }

  warn(w: string): void {
    if (!this.result.warnings.includes(w)) this.result.warnings.push(w);
  }

  log(sent: readonly Sent[]): void {
    appendRequestLines(this.logPath, sent.map(toRequestLine));
  }

  // Points by context, cells in plan order, whatever order they finished in.
  save(): string {
    const rank = (c: DecodeCell) => this.order.get(decodeKey(c.contextTokens, c.concurrency)) ?? 0;
    this.result.prefill.sort((a, b) => a.contextTokens - b.contextTokens);
    this.result.decode.sort((a, b) => rank(a) - rank(b));
    return writeResult(this.dir, this.result);
  }
}
