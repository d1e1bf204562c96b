import { contextLabel, fmtEta, wrapProse } from '../format/index.js';
import type { DecodeCell } from '../results/schema.js';
import type { CellCounts } from '../plan/counts.js';
import { cellShort, levelLine, measuredSoFar, OVER_SHORT, prefillLine } from './lines.js';
import { runEta } from './run-eta.js';
import { liveScreen } from './screen.js';
import type { CellRef, ProgressSink, ProgressStart } from './sink.js';
import { cellKey } from '../cell-rules.js';

// The live area: header, matrix and status line. Prefill results and warnings are permanent lines above it.
// A cell shows its figure once finished; before, "over" where the plan skips it as Over capacity, else "·".
function frame(s: ProgressStart, cells: Map<string, string>, over: Set<string>, status: string): string[] {
  const w = 9;
  const head = ['context'.padEnd(8), ...s.concurrency.map((n) => String(n).padStart(w))].join(' ');
  const rows = s.contexts.map((c) =>
    [
      contextLabel(c).padEnd(8),
      ...s.concurrency.map((n) =>
        (cells.get(cellKey(c, n)) ?? (over.has(cellKey(c, n)) ? OVER_SHORT : '·')).padStart(w),
      ),
    ].join(' '),
  );
  // A run of load levels alone has no matrix: its levels are lines above the live area.
  if (!s.concurrency.length) return [`${s.resumed ? 'resuming' : 'run'} ${s.runId} · ${s.model}`, status];
  return [
    `${s.resumed ? 'resuming' : 'run'} ${s.runId} · ${s.model} · total tok/s (q = requests queued)`,
    head,
    ...rows,
    status,
  ];
}

// On a TTY: the matrix filling in, the current phase and cell, and the ETA, redrawn in place.
export function liveProgress(stream: NodeJS.WriteStream): ProgressSink {
  const screen = liveScreen(stream);
  const eta = runEta();
  let s: ProgressStart | undefined;
  const cells = new Map<string, string>();
  let over = new Set<string>(); // the plan's Over capacity cells
  const skipped = (refs: readonly CellRef[]) =>
    (over = new Set(refs.map((c) => cellKey(c.contextTokens, c.concurrency))));
  let phase = '';
  let counts: CellCounts | undefined;
  let finished = false;
  const render = (permanent: string[] = [], stopped = false) => {
    if (finished) return;
    if (!s) {
      const cols = stream.columns > 0 ? stream.columns : 80;
      if (permanent.length) stream.write(permanent.map((l) => `${wrapProse(l, cols - 1)}\n`).join(''));
      return;
    }
    const measured = s.concurrency.length ? `${measuredSoFar(counts ?? s.counts)} · ` : '';
    // Stopped early: no ETA or phase is left standing above the error that follows.
    const status = stopped ? `${measured}stopped` : `${measured}ETA ${fmtEta(eta.seconds())} · ${phase}`;
    screen.draw(frame(s, cells, over, status), permanent);
  };
  const timer = setInterval(() => render(), 1000);
  timer.unref();
  return {
    start(x) {
      s = x;
      eta.start(x);
      for (const c of x.done) cells.set(cellKey(c.contextTokens, c.concurrency), cellShort(c));
      skipped(x.overCapacity);
      render();
    },
    replanned(refs) {
      skipped(refs);
      render();
    },
    phase(text) {
      phase = text;
      render();
    },
    prefillDone(p) {
      eta.prefillDone(p);
      render([prefillLine(p)]);
    },
    cellDone(c: DecodeCell, now: CellCounts) {
      counts = now;
      eta.cellDone(c);
      cells.set(cellKey(c.contextTokens, c.concurrency), cellShort(c));
      render();
    },
    levelDone(l, step) {
      eta.levelDone(step);
      render([levelLine(l)]);
    },
    warn(text) {
      render([`warning: ${text}`]);
    },
    close() {
      clearInterval(timer);
      if (!finished) {
        render([], true);
        screen.done();
      }
      finished = true;
    },
    note(text) {
      if (finished) stream.write(`${text}\n`);
      else render([text]);
    },
    finish(text) {
      clearInterval(timer);
      phase = 'done';
      render();
      finished = true;
      screen.done();
      stream.write(`${text}\n`);
    },
  };
}
