import { liveProgress } from './live.js';
import { plainProgress } from './plain.js';
import { silentProgress, type ProgressSink } from './sink.js';

export * from './sink.js';
export * from './lines.js';
export { liveProgress, plainProgress };

// TTY: live view; otherwise one line per finished cell; --quiet: nothing (errors still reach stderr).
export function chooseProgress(opts: { quiet?: boolean; stream?: NodeJS.WriteStream }): ProgressSink {
  if (opts.quiet) return silentProgress;
  const stream = opts.stream ?? process.stderr;
  if (stream.isTTY) return liveProgress(stream);
  return plainProgress((line) => stream.write(`${line}\n`));
}
