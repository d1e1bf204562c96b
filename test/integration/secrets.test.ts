import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimHandle } from '../../src/sim/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { fastFlags, startTestSim, tempDir } from './run-helpers.js';

const KEY = 'sk-LIB-distinctive-7f3a9c2e51d04b88';

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? allFiles(p) : [p];
  });
}

// The API key never reaches a result, request log, report, config echo, progress line or error message.
describe('API key never appears in any output', () => {
  let sim: SimHandle;
  beforeAll(async () => {
    sim = await startTestSim({ apiKey: KEY });
  });
  afterAll(async () => sim.close());

  it(
    'a full run with the key from the flag, the env and a file, and a launch command holding it',
    { timeout: 180_000 },
    async () => {
      const out = tempDir('secret');
      const keyFile = join(out, '..', `key-${Date.now()}`);
      writeFileSync(keyFile, `${KEY}\n`);
      const outputs: string[] = [];
      const runs = [
        ['--api-key', KEY],
        ['--api-key-file', keyFile],
      ];
      for (const extra of runs) {
        const r = await runCliInProcess([
          'run',
          ...fastFlags(sim.baseUrl, out),
          ...extra,
          '--contexts',
          '1K',
          '--concurrency',
          '1,2',
          '--max-output',
          '64',
          '--launch-command',
          `vllm serve m --api-key ${KEY} --port 8000`,
        ]);
        expect(r.code, r.stderr).toBe(0);
        outputs.push(r.stdout, r.stderr);
      }
      const env = await runCliInProcess(
        [
          'run',
          ...fastFlags(sim.baseUrl, out),
          '--contexts',
          '1K',
          '--concurrency',
          '1',
          '--max-output',
          '64',
        ],
        {
          env: { OPENAI_API_KEY: KEY },
        },
      );
      expect(env.code, env.stderr).toBe(0);
      outputs.push(env.stdout, env.stderr);
      // and errors: a wrong key that shares a prefix, an unreachable server
      const wrong = await runCliInProcess([
        'run',
        ...fastFlags(sim.baseUrl, out),
        '--api-key',
        `${KEY}-wrong`,
        '--contexts',
        '1K',
      ]);
      expect(wrong.code).toBe(4);
      outputs.push(wrong.stdout, wrong.stderr);
      const files = allFiles(out);
      expect(files.some((f) => f.endsWith('result.json'))).toBe(true);
      expect(files.some((f) => f.endsWith('requests.jsonl'))).toBe(true);
      expect(files.some((f) => f.endsWith('report.html'))).toBe(true);
      for (const f of files) expect(readFileSync(f, 'utf8').includes(KEY), f).toBe(false);
      for (const o of outputs) expect(o.includes(KEY)).toBe(false);
      expect(
        files.some(
          (f) => f.endsWith('result.json') && readFileSync(f, 'utf8').includes('--api-key <redacted>'),
        ),
      ).toBe(true);
    },
  );
});
