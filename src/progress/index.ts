import { liveProgress } from './live.js';
import { plainProgress } from './plain.js';
import { silentProgress, type ProgressSink } from './sink.js';

export * from './sink.js';
export * from './lines.js';
export { liveProgress, plainProgress };

// TTY: live view; otherwise one line per finished cell; --quiet: nothing (errors still reach stderr).
export function chooseProgress(opts: {
  quiet?: boolean;
  stream?: { write(text: string): unknown; isTTY?: boolean };
}): ProgressSink {
  if (opts.quiet) return silentProgress;
  const stream = opts.stream ?? process.stderr;
  // Only a terminal claims isTTY, and a terminal is a tty.WriteStream.
  if (stream.isTTY) return liveProgress(stream as NodeJS.WriteStream);
  return plainProgress((line) => stream.write(`${line}\n`));
}
