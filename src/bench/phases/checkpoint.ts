import { join } from 'node:path';
import type { Plan } from '../../plan/plan.js';
import { decodeKey, parseCellKey } from '../../results/cell-key.js';
import { REQUEST_LOG_FILE, appendRequestLines, keepRequestLines, writeResult } from '../../results/io.js';
import type { DecodeCell, PrefillPoint, RunResult } from '../../results/schema.js';
import { toRequestLine, type Sent } from '../drive/sender.js';

// The run's state on disk: it owns the result, saves it atomically after every finished point or cell, and
// keeps requests.jsonl to the finished ones (a cell cut by a kill or Ctrl-C is measured again on resume).
export class Checkpoint {
  readonly resultPath: string;
  private readonly prefillDone: Map<number, PrefillPoint>;
  private readonly cellsDone: Map<string, DecodeCell>;
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
    this.order = new Map(plan.cells.map((c, i) => [decodeKey(c.contextTokens, c.concurrency), i]));
    this.logPath = join(dir, REQUEST_LOG_FILE);
    const bad = keepRequestLines(this.logPath, (cell) => {
      const k = parseCellKey(cell);
      if (k?.kind === 'decode') return this.hasCell(k.contextTokens, k.concurrency);
      return k?.kind === 'prefill' && this.hasPrefill(k.contextTokens);
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
