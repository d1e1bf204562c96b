import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenError } from '../listen-error.js';
import { registerSecret } from '../secrets.js';
import { realClock, type Clock } from '../clock.js';
import { Histogram, type SimContext } from './context.js';
import { EngineLoop } from './engine-loop.js';
import { FaultPlan, parseFaults } from './faults.js';
import { FLAVOR_SPECS } from './flavors/flavor.js';
import { simLaunchCommand } from './launch-command.js';
import { handle } from './handler.js';
import type { Flavor, Profile, ProfileInput } from './profile-schema.js';
import { loadProfile } from './profiles.js';
import { Scheduler } from './scheduler.js';
import { TruthLog, type TruthRecord } from './truth.js';
import { ConnectionCloser, parseConnectionClose, type ConnectionClose } from './conn-close.js';
import { NodeWriter } from './writer.js';
import { checkOptions, keysOf } from '../option-keys.js';

export interface SimOptions {
  profile?: string | Profile | ProfileInput; // name in profiles/, file path, or object
  overrides?: Partial<Profile>;
  host?: string;
  port?: number;
  flavor?: Flavor;
  apiKey?: string;
  faults?: string;
  truthLog?: string;
  seed?: number;
  clock?: Clock; // tests only; the HTTP server runs in real time
  /**
   * Close each connection after N responses without saying so (conn-close.ts): "N", "N:MS" or "off", or the
   * rule itself; default the flavor's (llama.cpp's cpp-httplib closes, docs/engines.md "HTTP stacks").
   */
  closeConnections?: string | ConnectionClose | null;
}

const KEYS = keysOf<SimOptions>({
  profile: true,
  overrides: true,
  host: true,
  port: true,
  flavor: true,
  apiKey: true,
  faults: true,
  truthLog: true,
  seed: true,
  clock: true,
  closeConnections: true,
});

export interface SimHandle {
  url: string;
  baseUrl: string;
  profile: Profile;
  launchCommand: string; // what a real server with this profile would have been started with
  truth(): TruthRecord[];
  lag(): { maxMs: number; p99Ms: number; meanMs: number };
  /** Requests that came on a connection the sim was closing: never read, answered with the FIN alone. */
  droppedRequests(): number;
  close(): Promise<void>;
}

// Everything but the socket: used by startSim and by in-process handler tests.
export function createSimContext(opts: SimOptions): SimContext {
  const profile = loadProfile(opts.profile, {
    ...(opts.overrides ?? {}),
    ...(opts.flavor ? { flavor: opts.flavor } : {}),
  });
  const clock = opts.clock ?? realClock;
  const seed = opts.seed ?? 1;
  if (opts.apiKey) registerSecret(opts.apiKey);
  const ctx: SimContext = {
    profile,
    flavor: FLAVOR_SPECS[profile.flavor],
    engine: new EngineLoop(new Scheduler(profile, seed), clock),
    clock,
    truth: new TruthLog(opts.truthLog),
    faults: new FaultPlan(parseFaults(opts.faults), seed),
    startedMs: clock.now(),
    sessions: new Set(),
    nextId: 1,
    hist: { ttft: new Histogram(), e2e: new Histogram(), queue: new Histogram(), itl: new Histogram() },
  };
  if (opts.apiKey) ctx.apiKey = opts.apiKey;
  return ctx;
}

export async function startSim(opts: SimOptions = {}): Promise<SimHandle> {
  checkOptions('startSim', opts, KEYS);
  const ctx = createSimContext(opts);
  const now = () => ctx.clock.now();
  const closeRule =
    opts.closeConnections === undefined
      ? ctx.flavor.closeConnections
      : typeof opts.closeConnections === 'string'
        ? parseConnectionClose(opts.closeConnections)
        : opts.closeConnections;
  const closer = closeRule ? new ConnectionCloser(closeRule) : undefined;
  const server: Server = createServer(
    { noDelay: true, requestTimeout: 0, headersTimeout: 0, keepAliveTimeout: 65_000 },
    (req: IncomingMessage, res: ServerResponse) => {
      if (closer && !closer.admit(req, res)) return;
      if (ctx.flavor.keepAliveHeader) res.setHeader('Keep-Alive', ctx.flavor.keepAliveHeader);
      const arrivalMs = now();
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        const headers: Record<string, string | undefined> = {};
        for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        handle(
          ctx,
          {
            method: req.method ?? 'GET',
            url: req.url ?? '/',
            headers,
            body: Buffer.concat(parts).toString('utf8'),
            arrivalMs,
          },
          new NodeWriter(res, now),
        );
      });
      req.on('error', () => res.destroy());
    },
  );
  const keepAliveTimer = ctx.flavor.keepAlive
    ? setInterval(() => {
        const t = now();
        for (const s of ctx.sessions) s.keepAlive(t, ctx.profile.sseKeepAliveMs / ctx.profile.timeScale);
      }, 250)
    : undefined;
  keepAliveTimer?.unref();
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(listenError('sim', host, opts.port ?? 0, e)));
    // A deep accept queue: hundreds of clients connect at once in a ramp (Node's default is 511).
    server.listen({ port: opts.port ?? 0, host, backlog: 4096 }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  ctx.launchCommand = simLaunchCommand(ctx.profile, host, port);
  let closed: Promise<void> | undefined;
  return {
    url,
    baseUrl: `${url}/v1`,
    profile: ctx.profile,
    launchCommand: ctx.launchCommand,
    truth: () => ctx.truth.all(),
    droppedRequests: () => closer?.dropped ?? 0,
    lag: () => {
      const s = ctx.engine.lag.summary();
      return { maxMs: s.maxMs, p99Ms: s.p99Ms, meanMs: s.meanMs };
    },
    close: () => {
      closed ??= (async () => {
        if (keepAliveTimer) clearInterval(keepAliveTimer);
        closer?.close();
        ctx.engine.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await ctx.truth.close();
      })();
      return closed;
    },
  };
}
