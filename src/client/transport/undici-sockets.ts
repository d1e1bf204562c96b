// The sockets of our own undici dispatchers, seen enough to apply the lean client's rule for connections the
// server closes (origin-policy.ts): whether a failed request's socket had carried an earlier response, and
// whether any byte came after the request was written. undici does not say which socket carried a request, so
// the connector marks each socket, and tags the errors it emits with that socket's state: the request's
// handler reads the tag from the error undici hands it.
import type { Socket } from 'node:net';
import { buildConnector } from 'undici';
import { connectPacer } from './connect-pacer.js';
import { originKey } from './origin-policy.js';

const TAG = Symbol('llmib.socketState');

export interface SocketTag {
  /** Bytes had been read on the socket before the failed request was written: an earlier response. */
  reused: boolean;
  /** A byte arrived after the request was written. */
  answered: boolean;
  /** ms from the socket's last read (the previous response's end, when unanswered) to the failure. */
  sinceLastReadMs: number;
}

/** undici's own connector, paced as the lean client's (connect-pacer.ts), with every socket it opens tracked. */
export function trackedConnector(connectMs: number): buildConnector.connector {
  const base = buildConnector({ timeout: connectMs });
  return (opts, callback) =>
    // the lean pool's key for the same origin, so both transports share one pace
    connectPacer.run(originKey(opts), () =>
      base(opts, (...args: Parameters<buildConnector.Callback>) => {
        if (args[1]) track(args[1]);
        callback(...args);
      }),
    );
}

function track(socket: Socket): void {
  let readAtWrite = 0; // bytesRead when the last request was written
  let seen = 0;
  let lastReadAt = performance.now();
  // Set before undici's listeners, so each runs first: a read is stamped before undici consumes it, and an
  // error is tagged before undici passes it on.
  socket.on('readable', () => {
    if (socket.bytesRead !== seen) {
      seen = socket.bytesRead;
      lastReadAt = performance.now();
    }
  });
  socket.on('error', (err: unknown) => {
    if (typeof err !== 'object' || err === null) return;
    const tag: SocketTag = {
      reused: readAtWrite > 0,
      answered: socket.bytesRead > readAtWrite,
      sinceLastReadMs: performance.now() - lastReadAt,
    };
    (err as { [TAG]?: SocketTag })[TAG] = tag;
  });
  const write = socket.write;
  socket.write = function (this: Socket, ...args: unknown[]) {
    readAtWrite = socket.bytesRead;
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as Socket['write'];
}

/** The state of the socket an error came from, when it was one of ours. */
export function socketTag(err: unknown): SocketTag | undefined {
  return typeof err === 'object' && err !== null ? (err as { [TAG]?: SocketTag })[TAG] : undefined;
}
