// uvicorn + FastAPI/Starlette as vLLM runs it: --http httptools --loop uvloop (harness.ts: the legs and the
// bar). The idle leg runs with --timeout-keep-alive 1 instead of 5 s; closeEach is --timeout-keep-alive 0 (an
// unannounced close right after each response).
import { startUvicorn } from '../../helpers/real-stacks/index.js';
import { fixtureStack } from './stacks.js';
import { conformance } from './harness.js';

conformance(
  fixtureStack('uvicorn-httptools', ['main', 'idle', 'closeEach'], 1, (v) =>
    startUvicorn({
      http: 'httptools',
      loop: 'uvloop',
      keepAliveS: v === 'closeEach' ? 0 : v === 'idle' ? 1 : 5,
    }),
  ),
);
