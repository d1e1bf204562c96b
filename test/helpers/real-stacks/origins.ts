// The origin servers: the HTTP stacks engines run on, each serving the fixture protocol of index.ts.
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { cppHttplibBinary, FIXTURES, goBinary } from './build.js';
import { scratchDir, startProcess } from './process.js';

/** One request as the fixture saw it; times in epoch ms (sub-ms) on the client's timeline (readTruth). */
export interface FixtureTruth {
  requestId: string;
  arrivalMs: number; // the handler started (the request head was read)
  chunks: Array<[number, number]>; // [sent ms, tokens] of each token event, stamped just before its write
  endMs: number;
  tokens: number;
}

export interface RealStack {
  name: string;
  url: string; // http://127.0.0.1:port
  baseUrl: string; // url + /v1
  port: number;
  /** The ground truth so far, one entry per finished request. */
  truth(): FixtureTruth[];
  /** The server's stdout/stderr tail, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

// The fixtures stamp CLOCK_MONOTONIC µs, the clock under performance.now() (libuv's hrtime); the client stamps
// performance.timeOrigin + performance.now(). This offset puts the fixtures' stamps on the client's timeline
// exactly: a wall clock (time.time(), system_clock) drifts from it under NTP by tenths of a ms in a minute.
function monotonicToClientMs(): number {
  const client = performance.timeOrigin + performance.now();
  const mono = Number(process.hrtime.bigint()) / 1e6;
  return client - mono;
}

export function readTruth(file: string): FixtureTruth[] {
  if (!existsSync(file)) return [];
  const shift = monotonicToClientMs();
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const o = JSON.parse(l) as {
        requestId: string;
        arrivalUs: number;
        chunks: Array<[number, number]>;
        endUs: number;
        tokens: number;
      };
      return {
        requestId: o.requestId,
        arrivalMs: o.arrivalUs / 1000 + shift,
        chunks: o.chunks.map(([t, n]) => [t / 1000 + shift, n] as [number, number]),
        endMs: o.endUs / 1000 + shift,
        tokens: o.tokens,
      };
    });
}

async function origin(
  name: string,
  cmd: string,
  args: (truthFile: string) => string[],
  env: (truthFile: string) => NodeJS.ProcessEnv = () => ({}),
): Promise<RealStack> {
  const scratch = scratchDir(`stack-${name}`);
  const truthFile = join(scratch.dir, 'truth.jsonl');
  try {
    const p = await startProcess(cmd, args(truthFile), { env: env(truthFile), cwd: scratch.dir });
    const url = `http://127.0.0.1:${p.port}`;
    return {
      name,
      url,
      baseUrl: `${url}/v1`,
      port: p.port,
      truth: () => readTruth(truthFile),
      output: p.output,
      stop: async () => {
        await p.stop();
        scratch.remove();
      },
    };
  } catch (e) {
    scratch.remove();
    throw e;
  }
}

export interface UvicornOptions {
  /** uvicorn's HTTP parser: h11 (its default) or httptools (as vLLM runs it, with --loop uvloop). */
  http?: 'h11' | 'httptools';
  loop?: 'asyncio' | 'uvloop';
  /** --timeout-keep-alive (uvicorn's default 5 s); 0 closes each connection right after its response. */
  keepAliveS?: number;
}

/** FastAPI/Starlette StreamingResponse under uvicorn, on Debian's /usr/bin/python3. */
export function startUvicorn(o: UvicornOptions = {}): Promise<RealStack> {
  const http = o.http ?? 'h11';
  const loop = o.loop ?? (http === 'httptools' ? 'uvloop' : 'asyncio');
  return origin(
    `uvicorn-${http}`,
    '/usr/bin/python3',
    () => [
      join(FIXTURES, 'serve_uvicorn.py'),
      ...['--http', http, '--loop', loop, '--timeout-keep-alive', String(o.keepAliveS ?? 5)],
    ],
    (truth) => ({ FIXTURE_TRUTH: truth, PYTHONDONTWRITEBYTECODE: '1' }),
  );
}

export interface CppHttplibOptions {
  /** Responses per connection (set_keep_alive_max_count); default the library's compiled-in 5. */
  keepAliveMax?: number;
  /** Idle seconds before the server closes a kept-alive connection (cpp-httplib's default 5). */
  keepAliveS?: number;
  /** Server threads; each holds one connection for its whole keep-alive life (default 8). */
  threads?: number;
  /** TCP_NODELAY (default true, as llama.cpp builds cpp-httplib; the library's own default is false). */
  tcpNoDelay?: boolean;
}

/** A cpp-httplib server (llama.cpp's HTTP layer), compiled by the first test that asks for it. */
export function startCppHttplib(o: CppHttplibOptions = {}): Promise<RealStack> {
  const bin = cppHttplibBinary();
  return origin('cpp-httplib', bin, (truth) => [
    ...['--truth', truth, '--keep-alive-max', String(o.keepAliveMax ?? 0)],
    ...['--keep-alive-timeout', String(o.keepAliveS ?? 5), '--threads', String(o.threads ?? 8)],
    ...['--tcp-nodelay', o.tcpNoDelay === false ? '0' : '1'],
  ]);
}

export interface GoOptions {
  /** http.Server.IdleTimeout in seconds (0: Go's default, no idle close). */
  idleS?: number;
  /** false: SetKeepAlivesEnabled(false), every response says Connection: close. */
  keepAlives?: boolean;
  /** Close each connection without saying so right after its Nth response (the FIN follows the response). */
  closeAfter?: number;
}

/** Go's net/http (Ollama's HTTP stack), built offline from a standard-library main.go. */
export function startGo(o: GoOptions = {}): Promise<RealStack> {
  const bin = goBinary();
  return origin('go-net-http', bin, (truth) => [
    ...['-truth', truth, '-idle', String(o.idleS ?? 0), `-keepalives=${o.keepAlives ?? true}`],
    ...['-close-after', String(o.closeAfter ?? 0)],
  ]);
}

/**
 * A listener on 127.0.0.1 that never accepts (backlog 0): once its accept queue holds a connection, the kernel
 * answers no further SYN, so a connect to it neither completes nor fails, as to an address that does not
 * answer. fill() opens the connection that fills the queue.
 */
export async function startUnansweredListener(): Promise<{
  port: number;
  fill(): Promise<void>;
  stop(): Promise<void>;
}> {
  const script =
    'import socket,sys,time\n' +
    's=socket.socket(socket.AF_INET,socket.SOCK_STREAM)\n' +
    "s.bind(('127.0.0.1',0))\ns.listen(0)\n" +
    "print('PORT %d' % s.getsockname()[1], flush=True)\n" +
    'time.sleep(3600)\n';
  const p = await startProcess('/usr/bin/python3', ['-c', script]);
  const fillers: net.Socket[] = [];
  return {
    port: p.port,
    // connections until one does not complete within 300 ms: the queue is full from then on
    fill: async () => {
      for (let i = 0; i < 8; i++) {
        const s = net.connect({ host: '127.0.0.1', port: p.port });
        s.on('error', () => undefined);
        fillers.push(s);
        const done = await new Promise<boolean>((r) => {
          s.once('connect', () => r(true));
          setTimeout(() => r(false), 300);
        });
        if (!done) return;
      }
      throw new Error('the accept queue never filled');
    },
    stop: async () => {
      for (const s of fillers) s.destroy();
      await p.stop();
    },
  };
}
