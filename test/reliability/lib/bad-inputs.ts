import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server as TcpServer,
  type Socket,
} from 'node:net';
import { join } from 'node:path';
import { runCliInProcess } from '../../helpers/cli.js';
import { hasStackTrace, tempDir, TINY_ARGS } from './bench-run.js';

// Servers that are not what the user meant to benchmark; each listens on 127.0.0.1, port 0.
export interface Fakes {
  html: string; // serves an HTML page on every path
  garbage: string; // raw TCP: answers every connection with bytes that are not HTTP
  notOpenAi: string; // HTTP + JSON, but not the OpenAI API
  noModels: string; // OpenAI-shaped, with an empty model list
  closed: string; // nothing listens there
  close(): Promise<void>;
}

const listen = (s: Server | TcpServer): Promise<string> =>
  new Promise((res) =>
    s.listen(0, '127.0.0.1', () => res(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)),
  );

export async function startFakes(): Promise<Fakes> {
  const html = createHttpServer((_q, r) => {
    r.writeHead(200, { 'content-type': 'text/html' });
    r.end('<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>');
  });
  const garbage = createTcpServer((sock) => {
    sock.on('error', () => {});
    sock.end('SSH-2.0-OpenSSH_9.6\r\n\x00\x01\x02 garbage\r\n');
  });
  const notOpenAi = createHttpServer((_q, r) => {
    r.writeHead(200, { 'content-type': 'application/json' });
    r.end(JSON.stringify({ status: 'ok', service: 'something else', items: [1, 2, 3] }));
  });
  const noModels = createHttpServer((q, r) => {
    r.writeHead(q.url?.startsWith('/v1/models') ? 200 : 404, { 'content-type': 'application/json' });
    r.end(
      q.url?.startsWith('/v1/models')
        ? JSON.stringify({ object: 'list', data: [] })
        : '{"detail":"Not Found"}',
    );
  });
  // Port 1 needs root to bind and nothing here does: a freed ephemeral port could be handed straight back to one of
  // these servers (or another test's), which turned "nothing listens" into "not OpenAI-compatible".
  const closedUrl = 'http://127.0.0.1:1';
  const servers = [html, garbage, notOpenAi, noModels];
  // close() waits for open connections; a client that never closes its side would hold it forever.
  const sockets = new Set<Socket>();
  for (const s of servers)
    s.on('connection', (c: Socket) => {
      sockets.add(c);
      c.on('close', () => sockets.delete(c));
    });
  const [h, g, n, m] = await Promise.all(servers.map(listen));
  return {
    html: h!,
    garbage: g!,
    notOpenAi: n!,
    noModels: m!,
    closed: closedUrl,
    close: async () => {
      const closed = servers.map((s) => new Promise<void>((res) => s.close(() => res())));
      for (const c of sockets) c.destroy();
      await Promise.all(closed);
    },
  };
}

export interface BadInput {
  name: string;
  args: (f: Fakes, dir: string) => string[];
  files?: Record<string, string>; // written into dir first
  code: string; // the stable code expected
  mentions: RegExp[]; // what the one line must say (paths, suggestions)
}

const run = (url: string, ...rest: string[]) => ['run', '--base-url', url, ...TINY_ARGS, ...rest];

export const BAD_INPUTS: BadInput[] = [
  {
    name: 'config file: every problem listed with its path',
    files: {
      'bad.yaml': [
        'contxts: [8K]',
        'concurrency: [1, zero, -2]',
        'duration: -1',
        'maxOutput: lots',
        'apiKey: sk-should-not-be-here',
        'api: grpc',
      ].join('\n'),
    },
    args: (_f, d) => ['run', '--config', join(d, 'bad.yaml')],
    code: 'CONFIG_INVALID',
    mentions: [
      /contxts: unknown key \(did you mean contexts\?\)/,
      /concurrency: the 2nd value "zero"/,
      /concurrency: the 3rd value -2/,
      /duration/,
      /maxOutput/,
      /apiKey/,
      /api: expected one of chat, completions/,
    ],
  },
  {
    name: 'config file that is not YAML',
    files: { 'broken.yaml': 'contexts: [8K\n  - : :' },
    args: (_f, d) => ['run', '--config', join(d, 'broken.yaml')],
    code: 'CONFIG_INVALID',
    mentions: [/not valid YAML/],
  },
  {
    name: 'config file that does not exist',
    args: (_f, d) => ['run', '--config', join(d, 'missing.yaml')],
    code: 'CONFIG_INVALID',
    mentions: [/cannot read config file .*no such file or folder/],
  },
  {
    name: 'flags: every problem listed with its flag',
    args: (f) => [
      'run',
      '--base-url',
      f.closed,
      '--duration',
      'abc',
      '--concurrency',
      '1,0',
      '--contexts',
      '8K,huge',
    ],
    code: 'CONFIG_INVALID',
    mentions: [
      /--duration: expected a duration like 30, 30s or 2m/,
      /--concurrency: the 2nd value "0"/,
      /--contexts: the 2nd value "huge"/,
    ],
  },
  {
    name: 'unknown flag gets "did you mean"',
    args: (f) => ['run', '--base-url', f.closed, '--concurency', '2'],
    code: 'USAGE',
    mentions: [/unknown option '--concurency'/, /did you mean --concurrency\?/, /run --help/],
  },
  {
    name: 'unknown command gets "did you mean"',
    args: () => ['rnu'],
    code: 'USAGE',
    mentions: [/unknown command 'rnu'/, /did you mean run\?/],
  },
  {
    name: 'missing flag argument',
    args: () => ['plan', '--max-model-len'],
    code: 'USAGE',
    mentions: [/option '--max-model-len <tokens>' argument missing/, /plan --help/],
  },
  {
    name: 'invalid URL',
    args: () => ['run', '--base-url', 'not a url'],
    code: 'CONFIG_INVALID',
    mentions: [/--base-url: expected an http:\/\/ or https:\/\/ URL/],
  },
  {
    name: 'URL with another scheme',
    args: () => ['run', '--base-url', 'ftp://127.0.0.1:21/v1'],
    code: 'CONFIG_INVALID',
    mentions: [/--base-url/],
  },
  { name: 'no server given', args: () => ['run', ...TINY_ARGS], code: 'USAGE', mentions: [/--base-url/] },
  {
    name: 'nothing listens at the URL',
    args: (f) => run(f.closed),
    code: 'TARGET_UNREACHABLE',
    mentions: [/127\.0\.0\.1/],
  },
  {
    name: 'a URL that serves HTML',
    args: (f) => run(f.html),
    code: 'NOT_OPENAI_COMPATIBLE',
    mentions: [/HTML|html/],
  },
  {
    name: 'a server that speaks another protocol (raw TCP garbage)',
    args: (f) => run(f.garbage),
    code: 'TARGET_UNREACHABLE|NOT_OPENAI_COMPATIBLE',
    mentions: [/127\.0\.0\.1/],
  },
  {
    name: 'HTTP + JSON that is not the OpenAI API',
    args: (f) => run(f.notOpenAi),
    code: 'NOT_OPENAI_COMPATIBLE',
    mentions: [/OpenAI/],
  },
  {
    name: 'an empty model list',
    args: (f) => run(f.noModels),
    code: 'MODEL_NOT_FOUND|NOT_OPENAI_COMPATIBLE',
    mentions: [/model/i],
  },
  {
    name: '--resume of a folder without a result',
    args: (_f, d) => ['run', '--resume', d],
    code: 'USAGE',
    mentions: [/nothing to resume/],
  },
  {
    name: '--resume of a corrupt result.json',
    files: { 'result.json': '{"schema": "llm-inference-bench/result", "decode": [' },
    args: (_f, d) => ['run', '--resume', d],
    code: 'RESULT_INVALID',
    mentions: [/result\.json/],
  },
  {
    name: '--api-key-file that does not exist',
    args: (f, d) => [...run(f.closed), '--api-key-file', join(d, 'nokey')],
    code: 'CONFIG_INVALID',
    mentions: [/cannot read --api-key-file .*nokey: no such file or folder/],
  },
  {
    name: 'report of a file that is not a result',
    files: { 'x.json': '{"hello": 1}' },
    args: (_f, d) => ['report', join(d, 'x.json')],
    code: 'RESULT_INVALID',
    mentions: [/x\.json/],
  },
];

export interface BadInputOutcome {
  name: string;
  ok: boolean;
  line: string;
  problems: string[];
}

// One line on stderr (commander's own errors included), a stable code, the exit status of that code, no stack
// trace, and the mentions.
export async function tryBadInput(b: BadInput, f: Fakes): Promise<BadInputOutcome> {
  const dir = tempDir('bad');
  for (const [name, text] of Object.entries(b.files ?? {})) writeFileSync(join(dir, name), text);
  const r = await runCliInProcess(b.args(f, dir));
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  const line = lines[0] ?? '';
  const p: string[] = [];
  if (lines.length !== 1) p.push(`${lines.length} stderr lines: ${r.stderr.slice(0, 400)}`);
  if (hasStackTrace(r.stderr + r.stdout)) p.push('stack trace');
  if (r.code === 0 || r.code === null) p.push(`exit ${r.code}`);
  const m = /^error \[([A-Z_]+)\]: /.exec(line);
  if (!m || !new RegExp(`^(${b.code})$`).test(m[1]!)) p.push(`code ${m?.[1] ?? 'none'}, expected ${b.code}`);
  for (const re of b.mentions) if (!re.test(line)) p.push(`line does not mention ${re}`);
  if (r.stderr.includes('sk-should-not-be-here')) p.push('a key from the config file was echoed');
  return { name: b.name, ok: p.length === 0, line, problems: p };
}
