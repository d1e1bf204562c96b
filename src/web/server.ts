import type { ServiceLevel } from '../results/schema.js';
import { statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { hostname as osHostname } from 'node:os';
import { resolve } from 'node:path';
import { serve } from '@hono/node-server';
import { BenchError } from '../errors.js';
import { fsError } from '../fs-errors.js';
import { listenError } from '../listen-error.js';
import { createApp } from './app.js';
import { RunIndex } from './run-index.js';

export interface ServeOptions {
  roots: string[];
  host: string;
  port: number;
  allowRemote: boolean;
  cacheFile?: string;
  slo?: ServiceLevel; // the answer's service level (serve --slo)
}

export interface RunningServe {
  url: string;
  index: RunIndex;
  close(): Promise<void>;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];

export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Names a browser may send in Host: loopback ones and the address served; none checked on a wildcard bind. */
export function allowedHosts(host: string): Set<string> | undefined {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return undefined;
  const h = host.toLowerCase();
  return new Set([...LOOPBACK_NAMES, h.includes(':') && !h.startsWith('[') ? `[${h}]` : h]);
}

export async function startServe(o: ServeOptions): Promise<RunningServe> {
  const hint = 'Pass the folders that hold your runs (run and demo write them under results/).';
  for (const root of o.roots) {
    let dir: boolean;
    try {
      dir = statSync(root).isDirectory();
    } catch (e) {
      // Worded as report, compare and import word a path that is not there.
      throw fsError('USAGE', `cannot read ${root}`, e, hint);
    }
    if (!dir) throw new BenchError('USAGE', `${root} is not a folder.`, { hint });
  }
  if (!isLoopback(o.host) && !o.allowRemote)
    throw new BenchError('USAGE', `serve listens on loopback only; ${o.host} is not a loopback address.`, {
      hint: 'Add --allow-remote to serve your results to other machines (anyone who can reach the port can read them).',
    });
  const roots = o.roots.map((r) => resolve(r));
  const index = new RunIndex({
    roots,
    ...(o.cacheFile ? { cacheFile: o.cacheFile } : {}),
    ...(o.slo ? { slo: o.slo } : {}),
  });
  await index.refresh();
  const hosts = allowedHosts(o.host);
  if (hosts) hosts.add(osHostname().toLowerCase());
  const app = createApp({
    index,
    roots,
    ...(hosts ? { allowedHosts: hosts } : {}),
    ...(o.slo ? { slo: o.slo } : {}),
  });
  const server = await new Promise<ReturnType<typeof serve>>((ok, fail) => {
    const s = serve({ fetch: app.fetch, hostname: o.host, port: o.port }, () => ok(s));
    s.once('error', (e: NodeJS.ErrnoException) => fail(listenError('serve', o.host, o.port, e)));
  });
  const port = (server.address() as AddressInfo).port;
  const shown = o.host.includes(':') && !o.host.startsWith('[') ? `[${o.host}]` : o.host;
  return {
    url: `http://${shown === '0.0.0.0' || shown === '[::]' ? '127.0.0.1' : shown}:${port}/`,
    index,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
