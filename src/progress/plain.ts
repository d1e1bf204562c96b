import type { DecodeCell } from '../results/schema.js';
import { fmtEta } from '../format/index.js';
import type { CellCounts } from '../plan/counts.js';
import { cellLine, measuredSoFar, prefillLine, startLine } from './lines.js';
import { runEta } from './run-eta.js';
import type { ProgressSink, ProgressStart } from './sink.js';

// Without a TTY: one plain line per finished cell (logs, CI), with how far along and the ETA.
export function plainProgress(write: (line: string) => void): ProgressSink {
  let counts: CellCounts | undefined;
  const eta = runEta();
  return {
    start(s: ProgressStart) {
      counts = s.counts;
      eta.start(s);
      write(`${startLine(s)}; writing ${s.dir}`);
    },
    phase() {},
    prefillDone(p) {
      eta.prefillDone(p);
      write(prefillLine(p));
    },
    cellDone(c: DecodeCell, now: CellCounts) {
      counts = now;
      eta.cellDone(c);
      write(`${cellLine(c)} [${measuredSoFar(counts)}, ETA ${fmtEta(eta.seconds())}]`);
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
