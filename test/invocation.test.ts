import { describe, expect, it } from 'vitest';
import { invokedAs, shellWord } from '../src/invocation.js';

// A hint names the command that runs where the user is, not a bin that is not on the PATH.
describe('the command hints print', () => {
  const bin = '/home/u/proj/node_modules/.bin/llm-inference-bench';

  it('is npx after npm ci, through npx, npm exec or an npm script', () => {
    expect(invokedAs({ env: { npm_command: 'exec' }, script: bin })).toBe('npx llm-inference-bench');
    expect(invokedAs({ env: { npm_command: 'run-script' }, script: '/p/dist/cli/main.js' })).toBe(
      'npx llm-inference-bench',
    );
    // the project's bin started by its path, its folder not on the PATH: a pasted bare name would not be found
    expect(invokedAs({ env: { PATH: '/usr/bin:/bin' }, script: bin })).toBe('npx llm-inference-bench');
  });

  it('is the bare name when the bin that ran is on the PATH (a global install)', () => {
    const env = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/bin' };
    expect(invokedAs({ env, script: '/usr/local/bin/llm-inference-bench' })).toBe('llm-inference-bench');
    expect(invokedAs({ env: { PATH: '/home/u/proj/node_modules/.bin:/usr/bin' }, script: bin })).toBe(
      'llm-inference-bench',
    );
  });

  it('is the script as started, relative to the folder, when node or tsx ran a file', () => {
    expect(invokedAs({ env: {}, script: '/p/dist/cli/main.js', cwd: '/p' })).toBe('node dist/cli/main.js');
    expect(invokedAs({ env: {}, script: '/p/src/cli/main.ts', cwd: '/p' })).toBe('npx tsx src/cli/main.ts');
    expect(invokedAs({ env: {}, script: '/p/dist/cli/main.js', cwd: '/elsewhere' })).toBe(
      'node /p/dist/cli/main.js',
    );
    expect(invokedAs({ env: {}, script: '/my proj/dist/cli/main.js', cwd: '/x' })).toBe(
      "node '/my proj/dist/cli/main.js'",
    );
  });

  it('quotes a word only when the shell would change it', () => {
    expect(shellWord('results/20260101-x')).toBe('results/20260101-x');
    expect(shellWord('http://127.0.0.1:8000/v1')).toBe('http://127.0.0.1:8000/v1');
    expect(shellWord("it's here")).toBe(`'it'\\''s here'`);
    expect(shellWord('a$b')).toBe(`'a$b'`);
    expect(shellWord('')).toBe(`''`);
  });
});
