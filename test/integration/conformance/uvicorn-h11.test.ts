// uvicorn + FastAPI/Starlette with uvicorn's default h11 parser (harness.ts: the legs and the bar). The idle
// leg runs with --timeout-keep-alive 1 instead of uvicorn's 5 s, so it stays short; closeEach is
// --timeout-keep-alive 0, which closes each connection right after its response without saying so.
import { startUvicorn } from '../../helpers/real-stacks/index.js';
import { fixtureStack } from './stacks.js';
import { conformance } from './harness.js';

conformance(
  fixtureStack('uvicorn-h11', ['main', 'idle', 'closeEach'], 1, (v) =>
    startUvicorn({ http: 'h11', keepAliveS: v === 'closeEach' ? 0 : v === 'idle' ? 1 : 5 }),
  ),
);
