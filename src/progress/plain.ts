import type { DecodeCell } from '../results/schema.js';
import { fmtEta } from '../format/index.js';
import { cellLine, prefillLine } from './lines.js';
import { runEta } from './run-eta.js';
import type { ProgressSink, ProgressStart } from './sink.js';

// Without a TTY: one plain line per finished cell (logs, CI), with how far along and the ETA.
export function plainProgress(write: (line: string) => void): ProgressSink {
  let total = 0;
  let done = 0;
  const eta = runEta();
  return {
    start(s: ProgressStart) {
      total = s.cellsTotal;
      eta.start(s);
      write(
        `${s.resumed ? 'resuming' : 'run'} ${s.runId}: ${s.model}, ${s.contexts.length} contexts x ${s.concurrency.length} concurrency levels, ${s.cellsTotal} cells to measure, about ${fmtEta(s.estimateS)}; writing ${s.dir}`,
      );
    },
    phase() {},
    prefillDone(p) {
      eta.prefillDone(p);
      write(prefillLine(p));
    },
    cellDone(c: DecodeCell) {
      if (c.status !== 'Over capacity') done += 1;
      eta.cellDone(c);
      write(`${cellLine(c)} [${done}/${total}, ETA ${fmtEta(eta.seconds())}]`);
    },
    warn(text) {
      write(`warning: ${text}`);
    },
    note(text) {
      write(text);
    },
    finish(text) {
      write(text);
    },
  };
}
