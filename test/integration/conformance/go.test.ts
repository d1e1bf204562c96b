// Go's net/http (Ollama's HTTP stack; harness.ts: the legs and the bar): Go's defaults keep idle connections
// forever; the idle leg runs with IdleTimeout 1 s; closeEach is SetKeepAlivesEnabled(false) (Connection: close
// on every response); closeAfter2 closes each connection right after its 2nd response without saying so, as
// llama-server does.
import { startGo, type GoOptions } from '../../helpers/real-stacks/index.js';
import { fixtureStack } from './stacks.js';
import { conformance } from './harness.js';

const OPTIONS: Record<string, GoOptions> = {
  main: {},
  idle: { idleS: 1 },
  closeEach: { keepAlives: false },
  closeAfter2: { closeAfter: 2 },
};

conformance(fixtureStack('go-net-http', Object.keys(OPTIONS), 1, (v) => startGo(OPTIONS[v])));
