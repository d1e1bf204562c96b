// A live area at the bottom of a terminal that permanent lines scroll above. Each redraw moves the cursor back
// to the first row of the area, erases to the end of the screen, writes any new permanent lines and then the area
// again; so the header is never overwritten and no row of an earlier frame is left behind. Lines are cut to the
// terminal width and the area to its height, because a wrapped or scrolled-off row could not be reached again.

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
  const cut = area.map((l) => (l.length > columns - 1 ? l.slice(0, Math.max(1, columns - 1)) : l));
  const room = Math.max(1, rows - 1);
  if (cut.length <= room) return cut;
  // Keep the first line (what is running) and the last (progress and ETA); drop rows from the middle.
  if (room === 1) return [cut[cut.length - 1]!];
  return [...cut.slice(0, room - 1), cut[cut.length - 1]!];
}

export function liveScreen(stream: TtyLike): LiveScreen {
  let drawn = 0; // rows of the area now on screen
  const erase = () => {
    if (drawn === 0) return '';
    return `\r${drawn > 1 ? `${ESC}${drawn - 1}A` : ''}${ESC}J`;
  };
  return {
    draw(area, permanent = []) {
      const cols = stream.columns && stream.columns > 0 ? stream.columns : 80;
      const rows = stream.rows && stream.rows > 0 ? stream.rows : 24;
      const fitted = fitArea(area, cols, rows);
      const above = permanent.map((l) => `${l}\n`).join('');
      stream.write(`${erase()}${above}${fitted.join('\n')}`);
      drawn = fitted.length;
    },
    done() {
      if (drawn > 0) stream.write('\n');
      drawn = 0;
    },
  };
}
