import { wrapProse } from '../format/index.js';

// A live area at the bottom of a terminal that permanent lines scroll above. Each redraw moves the cursor back
// to the first row of the area and writes any new permanent lines and then the area over the old one, clearing the
// rest of each row as it goes and, after the last, the rows below; so the header is never overwritten and no row
// of an earlier frame is left behind. It never erases from the screen's top-left corner: tmux takes that for a
// cleared screen and scrolls it into its history (its scroll-on-clear option, on by default), so a view that
// starts on the top row would leave a frame in the scrollback at every redraw. Lines are cut to the terminal width
// and the area to its height, because a wrapped or scrolled-off row could not be reached again.

export interface LiveScreen {
  draw(area: readonly string[], permanent?: readonly string[]): void;
  done(): void; // leaves the last area on screen, the cursor below it
}

interface TtyLike {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
}

const ESC = '\u001b[';

export function fitArea(area: readonly string[], columns: number, rows: number): string[] {
  const cut = area.map((l) =>
    [...l].length > columns - 1 ? [...l].slice(0, Math.max(1, columns - 1)).join('') : l,
  );
  const room = Math.max(1, rows - 1);
  if (cut.length <= room) return cut;
  // Keep the first line (what is running) and the last (progress and ETA); drop rows from the middle.
  if (room === 1) return [cut[cut.length - 1]!];
  return [...cut.slice(0, room - 1), cut[cut.length - 1]!];
}

// Rows the lines take at this width: after the terminal narrows, a line drawn to fit may now wrap.
const rowsAt = (lines: readonly string[], cols: number) =>
  lines.reduce((t, l) => t + Math.max(1, Math.ceil([...l].length / cols)), 0);

export function liveScreen(stream: TtyLike): LiveScreen {
  let drawn: string[] = []; // the area now on screen
  const back = (cols: number) => {
    const rows = rowsAt(drawn, cols);
    if (rows === 0) return '';
    return `\r${rows > 1 ? `${ESC}${rows - 1}A` : ''}`;
  };
  return {
    draw(area, permanent = []) {
      const cols = stream.columns && stream.columns > 0 ? stream.columns : 80;
      const rows = stream.rows && stream.rows > 0 ? stream.rows : 24;
      const fitted = fitArea(area, cols, rows);
      // Permanent lines scroll away: wrapped at words to the width here, not mid-word by the terminal.
      const above = permanent.flatMap((l) => wrapProse(l, cols - 1).split('\n'));
      // Each row cleared after its text (EL), the rows below after the last (ED): the cursor is then past the
      // area's first row or its text, never at the top-left corner.
      stream.write(`${back(cols)}${[...above, ...fitted].join(`${ESC}K\n`)}${ESC}J`);
      drawn = fitted;
    },
    done() {
      if (drawn.length > 0) stream.write('\n');
      drawn = [];
    },
  };
}
