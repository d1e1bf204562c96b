import { invokedAs } from '../invocation.js';

// What a command writes to and reads from its surroundings: the process for the bin, buffers for in-process tests.
export interface CliStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  env: NodeJS.ProcessEnv;
  invokedAs?: string; // the command hints print (src/invocation.ts); in-process tests: npx's
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    invokedAs: invokedAs({ env: process.env, script: process.argv[1], cwd: process.cwd() }),
  };
}
