// Reverse proxies users put in front of an engine (nginx, haproxy), each with its own config, pid file and temp
// paths in a scratch folder and a port of its own: a system nginx or haproxy service is never touched.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FixtureTruth, RealStack } from './origins.js';
import { freePort, scratchDir, startProcess, type ServerProcess } from './process.js';

export interface Upstream {
  /** http://127.0.0.1:port of the server behind the proxy (the sim, or an origin fixture). */
  url: string;
  /** The upstream's ground truth (the sim's: simTruth(sim)). */
  truth?: () => FixtureTruth[];
}

export interface NginxOptions {
  /** proxy_buffering (nginx's default: on). */
  buffering?: boolean;
  /** gzip on, with text/event-stream among gzip_types (compresses a stream for a client that accepts gzip). */
  gzipEventStream?: boolean;
  /** keepalive_timeout towards the client in seconds (nginx's default 75; 0 closes after every response). */
  keepAliveS?: number;
  /** keepalive_requests (nginx's default 1000): the last response on a connection says Connection: close. */
  keepAliveRequests?: number;
  /**
   * proxy_http_version 1.1 (nginx's default: 1.0). With 1.0 and proxy_buffering on, nginx passes a streamed body
   * on in 4 KB buffers (18 SSE events a read, whatever their pace: docs/method.md "Streams held back").
   */
  upstreamHttp11?: boolean;
}

/** nginx in front of `upstream`, with its defaults except what the options name. */
export function startNginx(upstream: Upstream, o: NginxOptions = {}): Promise<RealStack> {
  const up = new URL(upstream.url);
  return proxy('nginx', upstream, async (dir, port) => {
    const conf = join(dir, 'nginx.conf');
    writeFileSync(
      conf,
      [
        process.getuid?.() === 0 ? 'user root;' : '', // root's workers otherwise run as nobody: no access to dir
        'worker_processes 1;',
        `pid ${dir}/nginx.pid;`,
        `error_log ${dir}/error.log warn;`,
        'daemon off;',
        'events { worker_connections 4096; }',
        'http {',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t};`),
        o.keepAliveS !== undefined ? `  keepalive_timeout ${o.keepAliveS};` : '',
        o.keepAliveRequests !== undefined ? `  keepalive_requests ${o.keepAliveRequests};` : '',
        o.gzipEventStream ? '  gzip on; gzip_types text/event-stream; gzip_min_length 1;' : '',
        `  server {`,
        `    listen 127.0.0.1:${port};`,
        `    location / {`,
        `      proxy_pass http://${up.host};`,
        o.buffering === false ? '      proxy_buffering off;' : '',
        o.upstreamHttp11 ? '      proxy_http_version 1.1;' : '',
        '    }',
        '  }',
        '}',
      ]
        .filter((l) => l !== '')
        .join('\n') + '\n',
    );
    return startProcess('nginx', ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')], { port });
  });
}

export interface HaproxyOptions {
  /** timeout http-keep-alive towards the client, in seconds. */
  keepAliveS?: number;
  /** option httpclose: every response ends its connection (Connection: close). */
  closeEach?: boolean;
  /**
   * option http-no-delay. Without it haproxy lets the kernel merge small writes for up to 200 ms (a streamed
   * body comes in bursts: docs/method.md "Streams held back").
   */
  noDelay?: boolean;
}

/** haproxy (mode http, its default keep-alive) in front of `upstream`. */
export function startHaproxy(upstream: Upstream, o: HaproxyOptions = {}): Promise<RealStack> {
  const up = new URL(upstream.url);
  return proxy('haproxy', upstream, async (dir, port) => {
    const conf = join(dir, 'haproxy.cfg');
    writeFileSync(
      conf,
      [
        'global',
        '  maxconn 4096',
        `  pidfile ${dir}/haproxy.pid`,
        'defaults',
        '  mode http',
        '  timeout connect 5s',
        '  timeout client 120s',
        '  timeout server 120s',
        o.keepAliveS !== undefined ? `  timeout http-keep-alive ${o.keepAliveS}s` : '',
        o.closeEach ? '  option httpclose' : '',
        o.noDelay ? '  option http-no-delay' : '',
        'frontend fe',
        `  bind 127.0.0.1:${port}`,
        '  default_backend be',
        'backend be',
        `  server up ${up.host}`,
      ]
        .filter((l) => l !== '')
        .join('\n') + '\n',
    );
    return startProcess('haproxy', ['-db', '-f', conf], { port });
  });
}

// A proxy binds a port it is given: a free one is chosen here, and another if it was taken in between.
async function proxy(
  name: string,
  upstream: Upstream,
  launch: (dir: string, port: number) => Promise<ServerProcess>,
): Promise<RealStack> {
  const scratch = scratchDir(`stack-${name}`);
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const p = await launch(scratch.dir, await freePort());
      const url = `http://127.0.0.1:${p.port}`;
      return {
        name,
        url,
        baseUrl: `${url}/v1`,
        port: p.port,
        truth: upstream.truth ?? (() => []),
        output: p.output,
        stop: async () => {
          await p.stop();
          scratch.remove();
        },
      };
    } catch (e) {
      last = e;
    }
  }
  scratch.remove();
  throw last;
}
