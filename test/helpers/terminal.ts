import { PassThrough } from 'node:stream';
import xterm from '@xterm/headless';

// A terminal emulator behind a fake TTY stream: tests read back the screen a user would see, not escape codes.
export interface EmulatedTty {
  stream: NodeJS.WriteStream;
  screen(): Promise<string[]>; // visible rows, right-trimmed, after every write so far was parsed
  scrollback(): Promise<string[]>; // the rows scrolled above the screen (the terminal's history), right-trimmed
  resize(cols: number, rows: number): Promise<void>; // as a user dragging the window (the stream follows)
}

export interface EmulatedTtyOptions {
  // As tmux does (its scroll-on-clear option, on by default): an erase to the end of the screen from the
  // top-left corner clears the whole screen, scrolling what it held into the history. xterm.js does so only for
  // an erase of the whole display (ED 2, with scrollOnEraseInDisplay), so such an erase is sent as that.
  tmux?: boolean;
}

// eslint-disable-next-line no-control-regex
const ERASE_BELOW = /\u001b\[0?J/;

export function emulatedTty(cols = 100, rows = 40, o: EmulatedTtyOptions = {}): EmulatedTty {
  // convertEol: a tty turns "\n" into "\r\n" (onlcr) before the terminal sees it.
  const term = new xterm.Terminal({
    cols,
    rows,
    allowProposedApi: true,
    convertEol: true,
    scrollOnEraseInDisplay: o.tmux === true,
  });
  const pass = new PassThrough();
  let rowsNow = rows;
  let pending = Promise.resolve();
  const write = (text: string) => new Promise<void>((done) => term.write(text, done));
  // Written part by part, so the cursor is known where each erase comes.
  const feed = async (text: string) => {
    let rest = text;
    for (let m = ERASE_BELOW.exec(rest); o.tmux && m; m = ERASE_BELOW.exec(rest)) {
      await write(rest.slice(0, m.index));
      const b = term.buffer.active;
      await write(b.cursorX === 0 && b.cursorY === 0 ? '\u001b[2J' : m[0]);
      rest = rest.slice(m.index + m[0].length);
    }
    await write(rest);
  };
  pass.on('data', (d: Buffer) => {
    const text = d.toString();
    pending = pending.then(() => feed(text));
  });
  const stream = Object.assign(pass, { isTTY: true, columns: cols, rows }) as unknown as NodeJS.WriteStream;
  const settle = async () => {
    await new Promise((r) => setImmediate(r));
    await pending;
  };
  const lines = (from: number, to: number) => {
    const buf = term.buffer.active;
    const out: string[] = [];
    for (let i = from; i < to; i++) out.push(buf.getLine(i)?.translateToString(true) ?? '');
    return out;
  };
  return {
    stream,
    async resize(c, r) {
      await settle();
      term.resize(c, r);
      Object.assign(stream, { columns: c, rows: r });
      rowsNow = r;
    },
    async screen() {
      await settle();
      const base = term.buffer.active.viewportY;
      const out = lines(base, base + rowsNow);
      while (out.length > 0 && out[out.length - 1] === '') out.pop();
      return out;
    },
    async scrollback() {
      await settle();
      return lines(0, term.buffer.active.baseY);
    },
  };
}
