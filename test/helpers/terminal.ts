import { PassThrough } from 'node:stream';
import xterm from '@xterm/headless';

// A terminal emulator behind a fake TTY stream: tests read back the screen a user would see, not escape codes.
export interface EmulatedTty {
  stream: NodeJS.WriteStream;
  screen(): Promise<string[]>; // visible rows, right-trimmed, after every write so far was parsed
  resize(cols: number, rows: number): Promise<void>; // as a user dragging the window (the stream follows)
}

export function emulatedTty(cols = 100, rows = 40): EmulatedTty {
  // convertEol: a tty turns "\n" into "\r\n" (onlcr) before the terminal sees it.
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true, convertEol: true });
  const pass = new PassThrough();
  let rowsNow = rows;
  let pending = Promise.resolve();
  pass.on('data', (d: Buffer) => {
    const text = d.toString();
    pending = pending.then(() => new Promise<void>((done) => term.write(text, done)));
  });
  const stream = Object.assign(pass, { isTTY: true, columns: cols, rows }) as unknown as NodeJS.WriteStream;
  const settle = async () => {
    await new Promise((r) => setImmediate(r));
    await pending;
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
      const buf = term.buffer.active;
      const out: string[] = [];
      for (let i = 0; i < rowsNow; i++)
        out.push(buf.getLine(buf.viewportY + i)?.translateToString(true) ?? '');
      while (out.length > 0 && out[out.length - 1] === '') out.pop();
      return out;
    },
  };
}
