import type { DecodeCell } from '../results/schema.js';
import { fmtEta, wrap, wrapProse } from '../format/index.js';
import type { CellCounts } from '../plan/counts.js';
import { cellLine, levelLine, measuredSoFar, prefillLine, startLine } from './lines.js';
import { runEta } from './run-eta.js';
import type { ProgressSink, ProgressStart } from './sink.js';

// A cell's line wrapped to the width, its "[5/13 measured, ETA 33 s]" kept whole at the end (a log reader's
// regex, and a person, read it as one piece).
function withTail(line: string, tail: string, width: number): string {
  const lines = wrap(line, width, '  ');
  const last = lines.length - 1;
  if (lines[last]!.length + 1 + tail.length <= width) lines[last] = `${lines[last]} ${tail}`;
  else lines.push(`  ${tail}`);
  return lines.join('\n');
}

// Without a TTY: one plain line per finished cell (logs, CI), with how far along and the ETA, fitted to 80
// columns (a longer line continues two spaces in).
export function plainProgress(write: (line: string) => void, width = 80): ProgressSink {
  let counts: CellCounts | undefined;
  const eta = runEta();
  const say = (text: string) => write(wrapProse(text, width));
  return {
    start(s: ProgressStart) {
      counts = s.counts;
      eta.start(s);
      say(`${startLine(s)}; writing ${s.dir}`);
    },
    phase() {},
    prefillDone(p) {
      eta.prefillDone(p);
      say(prefillLine(p));
    },
    cellDone(c: DecodeCell, now: CellCounts) {
      counts = now;
      eta.cellDone(c);
      write(withTail(cellLine(c), `[${measuredSoFar(counts)}, ETA ${fmtEta(eta.seconds())}]`, width));
    },
    levelDone(l, step) {
      eta.levelDone(step);
      write(withTail(levelLine(l), `[ETA ${fmtEta(eta.seconds())}]`, width));
    },
    warn(text) {
      say(`warning: ${text}`);
    },
    note(text) {
      say(text);
    },
    finish(text) {
      say(text);
    },
  };
}
