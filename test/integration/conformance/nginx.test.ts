// nginx in front of the sim (harness.ts: the legs and the bar): its defaults (proxy_buffering on); the idle leg
// runs with keepalive_timeout 1 s instead of 75 s; closeEach is keepalive_timeout 0 (Connection: close on every
// response); bufferingOff is `proxy_buffering off`; gzip is `gzip on` for text/event-stream (our client never
// asks for a compressed stream, so nothing is held back).
import { startNginx, type NginxOptions } from '../../helpers/real-stacks/index.js';
import { proxyStack } from './stacks.js';
import { conformance } from './harness.js';

const OPTIONS: Record<string, NginxOptions> = {
  main: {},
  idle: { keepAliveS: 1 },
  closeEach: { keepAliveS: 0 },
  bufferingOff: { buffering: false },
  gzip: { gzipEventStream: true },
};

conformance(proxyStack('nginx', Object.keys(OPTIONS), 1, (up, v) => startNginx(up, OPTIONS[v])));
