import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runCliInProcess, type CliResult } from '../../helpers/cli.js';
import { startSim } from '../../../src/sim/index.js';
import { tempDir, tinyArgs } from './bench-run.js';

// Distinctive keys: any occurrence anywhere is a leak (also a fragment long enough to identify the key).
export const KEY = 'sk-RELIAB-7f3c9e51-DISTINCTIVE-KEY-0042';
export const WRONG_KEY = 'sk-WRONG-a91b22c7-DISTINCTIVE-KEY-0666';
const FRAGMENTS = (k: string) => [k, k.slice(3, 20), k.slice(-16)];

export interface Leak {
  where: string;
  key: string;
}

export function findLeaks(where: string, text: string, keys: string[]): Leak[] {
  return keys.filter((k) => FRAGMENTS(k).some((f) => text.includes(f))).map((key) => ({ where, key }));
}

export function leaksInDir(dir: string, keys: string[]): Leak[] {
  const out: Leak[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...leaksInDir(p, keys));
    else out.push(...findLeaks(p, readFileSync(p, 'utf8'), keys));
  }
  return out;
}

// A server that echoes the Authorization header in its 401 body, as some proxies do.
export function startEchoingAuthServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const s: Server = createServer((q, r) => {
    r.writeHead(401, {
      'content-type': 'application/json',
      'www-authenticate': `Bearer ${q.headers.authorization ?? ''}`,
    });
    r.end(
      JSON.stringify({
        error: { message: `invalid api key: ${q.headers.authorization ?? 'none'}`, code: 401 },
      }),
    );
  });
  return new Promise((res) =>
    s.listen(0, '127.0.0.1', () =>
      res({
        url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`,
        close: () => new Promise<void>((c) => s.close(() => c())),
      }),
    ),
  );
}

export interface SecretsOutcome {
  surfaces: string[]; // every place searched
  leaks: Leak[];
  accepted: Record<'flag' | 'env' | 'file', number | null>; // exit codes of the runs given the key each way
  wrongKey: CliResult;
  echo: CliResult;
}

// The key from flag, env and file; a wrong key; a server that echoes it. Searched: every file of each run folder
// (result.json, requests.jsonl, report.html, report.md), reports rendered as txt/md/csv/html, stdout and stderr
// of every command (with --debug), error lines.
export async function secretsSweep(): Promise<SecretsOutcome> {
  const keys = [KEY, WRONG_KEY];
  const sim = await startSim({ profile: 'tiny', port: 0, apiKey: KEY });
  const echo = await startEchoingAuthServer();
  const out = tempDir('secrets');
  const surfaces: string[] = [];
  const leaks: Leak[] = [];
  const check = (where: string, r: CliResult) => {
    surfaces.push(`${where} stdout`, `${where} stderr`);
    leaks.push(
      ...findLeaks(`${where} stdout`, r.stdout, keys),
      ...findLeaks(`${where} stderr`, r.stderr, keys),
    );
  };
  const launch = `vllm serve m --api-key ${KEY} --port 8000`;
  const common = (id: string) => [
    'run',
    '--base-url',
    sim.baseUrl,
    '--out',
    out,
    '--run-id',
    id,
    '--debug',
    '--launch-command',
    launch,
    '--title',
    'secrets',
    ...tinyArgs('1K', '2'),
  ];
  try {
    const keyFile = join(out, 'key.txt');
    writeFileSync(keyFile, `${KEY}\n`);
    const env = { OPENAI_API_KEY: '', LLM_BENCH_API_KEY: '' };
    const [flag, viaEnv, viaFile] = await Promise.all([
      runCliInProcess([...common('flag'), '--api-key', KEY], { env }),
      runCliInProcess(common('env'), { env: { ...env, OPENAI_API_KEY: KEY } }),
      runCliInProcess([...common('file'), '--api-key-file', keyFile], { env }),
    ]);
    check('run --api-key', flag);
    check('run OPENAI_API_KEY', viaEnv);
    check('run --api-key-file', viaFile);
    const wrongKey = await runCliInProcess([...common('wrong'), '--api-key', WRONG_KEY], { env });
    check('run with a wrong key', wrongKey);
    const echoRun = await runCliInProcess(
      [
        'run',
        '--base-url',
        echo.url,
        '--out',
        out,
        '--run-id',
        'echo',
        '--debug',
        '--api-key',
        KEY,
        ...tinyArgs(),
      ],
      { env },
    );
    check('run against a server echoing the key', echoRun);
    const probe = await runCliInProcess(
      ['probe', '--base-url', echo.url, '--api-key', WRONG_KEY, '--debug'],
      { env },
    );
    check('probe against a server echoing the key', probe);
    for (const id of ['flag']) {
      for (const format of ['txt', 'md', 'csv', 'html', 'json']) {
        const r = await runCliInProcess([
          'report',
          join(out, id, 'result.json'),
          '--format',
          format,
          '--debug',
        ]);
        check(`report --format ${format} (${id})`, r);
      }
    }
    for (const name of readdirSync(out)) surfaces.push(join(out, name));
    leaks.push(...leaksInDir(out, keys).filter((l) => !l.where.endsWith('key.txt')));
    return {
      surfaces,
      leaks,
      accepted: { flag: flag.code, env: viaEnv.code, file: viaFile.code },
      wrongKey,
      echo: echoRun,
    };
  } finally {
    await echo.close();
    await sim.close();
  }
}
