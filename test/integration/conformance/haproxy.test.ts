// haproxy in front of the sim (harness.ts: the legs and the bar): mode http with its default keep-alive; the
// idle leg runs with `timeout http-keep-alive 1s`; closeEach is `option httpclose` (every response ends its
// connection).
import { startHaproxy, type HaproxyOptions } from '../../helpers/real-stacks/index.js';
import { proxyStack } from './stacks.js';
import { conformance } from './harness.js';

const OPTIONS: Record<string, HaproxyOptions> = {
  main: {},
  idle: { keepAliveS: 1 },
  closeEach: { closeEach: true },
};

conformance(proxyStack('haproxy', Object.keys(OPTIONS), 1, (up, v) => startHaproxy(up, OPTIONS[v])));
