import { setInvocation } from '../../src/invocation.js';

// Hints rendered outside main() (a report's "measure it again" command, a twin's recipe) name the command this
// process looks like, and a vitest worker looks like nothing a user types (`node .../forks.js` unless npm started
// it). Every test sees what a user who ran `npm ci` sees, however vitest was started (.ci/run runs it directly on
// Node 22 and 24). main() still sets its own per invocation.
setInvocation('npx llm-inference-bench');
