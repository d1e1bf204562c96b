// cpp-httplib 0.11.4 (llama.cpp's HTTP layer; harness.ts: the legs and the bar): its compiled-in count closes
// each connection after 5 responses, the 5th saying Connection: close; the idle leg runs with a keep-alive
// timeout of 1 s instead of 5 s (cpp-httplib waits that long for a new connection's first request too); 300
// threads, as a llama-server with many slots (each thread holds one connection); closeEach is a keep-alive
// count of 1.
import { startCppHttplib } from '../../helpers/real-stacks/index.js';
import { fixtureStack } from './stacks.js';
import { conformance } from './harness.js';

conformance(
  fixtureStack('cpp-httplib', ['main', 'idle', 'closeEach'], 1, (v) =>
    startCppHttplib({
      keepAliveS: v === 'idle' ? 1 : 5,
      threads: 300,
      ...(v === 'closeEach' ? { keepAliveMax: 1 } : {}),
    }),
  ),
);
