// Errors a new user meets first, each one coded line that says what to do (docs/reliability.md "Bad input").
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';

describe('a busy port', () => {
  let busy: Server;
  let port: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((ok) => busy.listen(0, '127.0.0.1', ok));
    port = (busy.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((ok) => busy.close(() => ok())));

  // `sim --port 8000` with 8000 taken printed "sim cannot listen on 127.0.0.1:8000: EADDRINUSE".
  it('sim: the port is in use, pick another or --port 0', async () => {
    const r = await runCliInProcess(['sim', '--port', String(port)]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error [USAGE]: sim cannot listen on 127.0.0.1:${port}: the port is in use (another server, or an earlier one still running). Pick another with --port, or --port 0 for a free one.\n`,
    );
  });

  it('serve says the same', async () => {
    const r = await runCliInProcess(['serve', '.', '--port', String(port)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error [USAGE]: serve cannot listen on 127.0.0.1:${port}: the port is in use (another server, or an earlier one still running). Pick another with --port, or --port 0 for a free one.\n`,
    );
  });
});

// `--concurrency 1,x` said "--concurrency[1]: expected a number": counted from zero, without the value.
describe('a wrong value in a list', () => {
  it('is named as a person counts, with the value', async () => {
    const r = await runCliInProcess([
      'plan',
      '--max-model-len',
      '16K',
      '--concurrency',
      '1,x,4',
      '--contexts',
      '8K,banana',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error [CONFIG_INVALID]: invalid options: --contexts: the 2nd value "banana": expected a token count like 8K, 1M or 8192; --concurrency: the 2nd value "x": expected a number\n',
    );
  });

  it('a list of one value reads as that value', async () => {
    const r = await runCliInProcess(['plan', '--max-model-len', '16K', '--concurrency', '0']);
    expect(r.stderr).toBe('error [CONFIG_INVALID]: invalid options: --concurrency: expected a value >= 1\n');
  });

  it('counts on: 3rd, 11th, 12th, 21st', async () => {
    const list = (bad: number) =>
      Array.from({ length: bad }, (_, i) => (i === bad - 1 ? 'y' : String(i + 1))).join(',');
    for (const [n, word] of [
      [3, '3rd'],
      [11, '11th'],
      [12, '12th'],
      [21, '21st'],
    ] as const) {
      const r = await runCliInProcess(['plan', '--max-model-len', '16K', '--concurrency', list(n)]);
      expect(r.stderr).toContain(`--concurrency: the ${word} value "y": expected a number`);
    }
  });
});

// A missing --api-key-file was USAGE, a missing --config CONFIG_INVALID: a file a flag names that cannot be read is
// the flag's bad value, CONFIG_INVALID for every such flag (docs/cli.md "Exit codes and errors").
describe('a file a flag names that does not exist', () => {
  const missing = join(tmpdir(), `llm-bench-missing-${process.pid}`);
  const offline = ['plan', '--max-model-len', '16K', '--contexts', '8K'];
  it.each([
    ['--config', [...offline, '--config', `${missing}.yaml`], `cannot read config file ${missing}.yaml`],
    [
      '--api-key-file',
      ['probe', '--base-url', 'http://127.0.0.1:9/v1', '--api-key-file', missing],
      `cannot read --api-key-file ${missing}`,
    ],
    ['sim --profile', ['sim', '--profile', `${missing}.yaml`], `cannot read the profile ${missing}.yaml`],
  ])('%s: CONFIG_INVALID, in words', async (_flag, args, what) => {
    const r = await runCliInProcess(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^error \\[CONFIG_INVALID\\]: ${escape(what)}: no such file or folder\\. `),
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
