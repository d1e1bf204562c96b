import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { serveFixture, type FixtureServer } from '../target/fixture-server.js';

// `plan --for-twin --api-key K` printed run commands that fail as pasted against a key-protected server, with
// nothing saying they need the key. The commands never carry the key itself: a key file they name too; a key
// given by flag or in the URL, a note says how to give it.
const KEY = 'sk-twin-recipe-key-8812';
const offline = ['plan', '--for-twin', '--max-model-len', '32K', '--kv-capacity', '200K'];
const noEnvKey = { env: { OPENAI_API_KEY: '', LLM_BENCH_API_KEY: '' } };
const NOTE =
  '  # each run command needs the key: export OPENAI_API_KEY=... first, or add --api-key-file FILE to each.';
const runLines = (out: string) =>
  out.split('\n').filter((l) => / run /.test(l) && l.includes('--out twin-run-'));

let srv: FixtureServer;
beforeAll(async () => {
  srv = await serveFixture('vllm'); // no key needed: the probe succeeds with the key stripped from the URL
});
afterAll(async () => {
  await srv.close();
});

describe('plan --for-twin and the API key', () => {
  it('--api-key: a note before the commands, the key nowhere', async () => {
    const r = await runCliInProcess([...offline, '--api-key', KEY], noEnvKey);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(NOTE);
    expect(lines.indexOf(NOTE)).toBeLessThan(lines.indexOf(runLines(r.stdout)[0]!));
    expect(r.stdout + r.stderr).not.toContain(KEY);
    const json = JSON.parse(
      (await runCliInProcess([...offline, '--api-key', KEY, '--json'], noEnvKey)).stdout,
    ) as {
      keyNote?: string;
    };
    expect(json.keyNote).toBe(NOTE.replace('  # ', ''));
  });

  it('--api-key-file F: every run command names the same file, so it runs as pasted', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'lib-twin-key-')), 'key');
    writeFileSync(file, `${KEY}\n`);
    const r = await runCliInProcess([...offline, '--api-key-file', file], noEnvKey);
    expect(r.code, r.stderr).toBe(0);
    const runs = runLines(r.stdout);
    expect(runs.length).toBeGreaterThan(1);
    for (const l of runs) expect(l).toContain(` --api-key-file ${file} `);
    expect(r.stdout).not.toContain('# each run command needs the key');
    expect(r.stdout).not.toContain(KEY);
  });

  it('the key from the environment: the pasted commands find it there, no note', async () => {
    const r = await runCliInProcess(offline, { env: { OPENAI_API_KEY: KEY } });
    expect(r.stdout).not.toContain('needs the key');
    expect(runLines(r.stdout).every((l) => !l.includes('--api-key'))).toBe(true);
  });

  it('a key in --base-url: the commands carry the URL without it, and the note', async () => {
    const u = new URL(srv.url);
    const r = await runCliInProcess(
      ['plan', '--for-twin', '--base-url', `${u.protocol}//user:${KEY}@${u.host}/v1`, '--max-output', '512'],
      noEnvKey,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(NOTE);
    for (const l of runLines(r.stdout)) expect(l).toContain(` --base-url ${srv.url}/v1 `);
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });
});
