import { BenchError } from './errors.js';

// A server of ours that cannot listen (sim, serve), said in words with what to do, where Node gives a code
// (EADDRINUSE): one line, docs/reliability.md "Bad input".
const WHY: Record<string, [string, string]> = {
  EADDRINUSE: [
    'the port is in use (another server, or an earlier one still running)',
    'Pick another with --port, or --port 0 for a free one.',
  ],
  EACCES: [
    'this user may not listen there (ports below 1024 need privileges)',
    'Pick a port from 1024 up with --port, or --port 0 for a free one.',
  ],
  EADDRNOTAVAIL: [
    'no interface of this machine has that address',
    'Give one of its addresses with --host (127.0.0.1 for this machine only).',
  ],
};

export function listenError(what: string, host: string, port: number, e: NodeJS.ErrnoException): BenchError {
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
  const known = e.code ? WHY[e.code] : undefined;
  return new BenchError(
    'USAGE',
    `${what} cannot listen on ${shown}: ${known ? known[0] : (e.code ?? e.message)}`,
    {
      ...(known ? { hint: known[1] } : {}),
      cause: e,
    },
  );
}
