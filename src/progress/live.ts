import { createLogUpdate } from 'log-update';
import { contextLabel, fmtEta } from '../format/index.js';
import type { DecodeCell } from '../results/schema.js';
import { cellShort, prefillLine } from './lines.js';
import type { ProgressSink, ProgressStart } from './sink.js';

// On a TTY: the matrix filling in, the current phase and cell, and the ETA, redrawn in place.
export function liveProgress(stream: NodeJS.WriteStream): ProgressSink {
  const log = createLogUpdate(stream, { showCursor: true });
  let s: ProgressStart | undefined;
  const cells = new Map<string, string>();
  const prefill: string[] = [];
  let phase = '';
  let done = 0;
  let startedMs = Date.now();
  const key = (c: number, n: number) => `${c}x${n}`;
  const render = () => {
    if (!s) return;
    const w = 9;
    const head = ['context'.padEnd(8), ...s.concurrency.map((n) => String(n).padStart(w))].join(' ');
    const rows = s.contexts.map((c) =>
      [
        contextLabel(c).padEnd(8),
        ...s!.concurrency.map((n) => (cells.get(key(c, n)) ?? '·').padStart(w)),
      ].join(' '),
    );
    const elapsedS = (Date.now() - startedMs) / 1000;
    const avg = done > 0 ? elapsedS / done : s.perCellS;
    const eta = fmtEta(Math.max(0, s.cellsTotal - done) * avg);
    log(
      [
        `${s.resumed ? 'resuming' : 'run'} ${s.runId} · ${s.model} · total tok/s (q = requests queued)`,
        ...prefill.slice(-3),
        head,
        ...rows,
        `${done}/${s.cellsTotal} cells · ETA ${eta} · ${phase}`,
      ].join('\n'),
    );
  };
  const timer = setInterval(render, 1000);
  timer.unref();
  return {
    start(x) {
      s = x;
      startedMs = Date.now();
      for (const c of x.done) cells.set(key(c.contextTokens, c.concurrency), cellShort(c));
      render();
    },
    phase(text) {
      phase = text;
      render();
    },
    prefillDone(p) {
      prefill.push(prefillLine(p));
      render();
    },
    cellDone(c: DecodeCell) {
      if (c.status !== 'Over capacity') done += 1;
      cells.set(key(c.contextTokens, c.concurrency), cellShort(c));
      render();
    },
    warn(text) {
      log.clear();
      stream.write(`warning: ${text}\n`);
      render();
    },
    finish(text) {
      clearInterval(timer);
      phase = 'done';
      render();
      log.done();
      stream.write(`${text}\n`);
    },
  };
}
