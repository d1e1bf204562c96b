import type { DecodeCell } from '../results/schema.js';
import { fmtEta } from '../format/index.js';
import { cellLine, prefillLine } from './lines.js';
import type { ProgressSink, ProgressStart } from './sink.js';

// Without a TTY: one plain line per finished cell (logs, CI), with how far along and the ETA.
export function plainProgress(write: (line: string) => void): ProgressSink {
  let total = 0;
  let done = 0;
  let perCellS = 0;
  let startedMs = 0;
  return {
    start(s: ProgressStart) {
      total = s.cellsTotal;
      perCellS = s.perCellS;
      startedMs = Date.now();
      write(
        `${s.resumed ? 'resuming' : 'run'} ${s.runId}: ${s.model}, ${s.contexts.length} contexts x ${s.concurrency.length} concurrency levels, ${s.cellsTotal} cells to measure, about ${fmtEta(s.estimateS)}; writing ${s.dir}`,
      );
    },
    phase() {},
    prefillDone(p) {
      write(prefillLine(p));
    },
    cellDone(c: DecodeCell) {
      if (c.status !== 'Over capacity') done += 1;
      const elapsedS = (Date.now() - startedMs) / 1000;
      const avg = done > 0 ? elapsedS / done : perCellS;
      write(`${cellLine(c)} [${done}/${total}, ETA ${fmtEta(Math.max(0, total - done) * avg)}]`);
    },
    warn(text) {
      write(`warning: ${text}`);
    },
    finish(text) {
      write(text);
    },
  };
}
