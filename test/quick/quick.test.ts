import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerOf } from '../../src/answer/answer.js';
import { renderReport } from '../../src/report/index.js';
import { loadResult } from '../../src/results/read.js';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { runCliInProcess } from '../helpers/cli.js';

// `quick` against sims started in this process on ports of their own (127.0.0.1, port 0): what it finds, how it
// refuses, and the answer it prints. A short budget keeps the real-time run to a few seconds.
let vllm: SimHandle & { port: number };
let ollama: SimHandle & { port: number };
let keyed: SimHandle & { port: number }; // sim --api-key s3cret
const withPort = (h: SimHandle) => Object.assign(h, { port: Number(new URL(h.url).port) });
let closedPort: number;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  vllm = withPort(await startSim({ profile: 'demo', port: 0 }));
  ollama = withPort(await startSim({ profile: 'tiny', flavor: 'ollama', port: 0 }));
  keyed = withPort(await startSim({ profile: 'tiny', apiKey: 's3cret', port: 0 }));
  closedPort = await freePort();
});
afterAll(async () => {
  await vllm.close();
  await ollama.close();
  await keyed.close();
});

describe('quick', () => {
  it('finds the server on a chosen port, measures it, and answers in at most 10 lines of 80 columns', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-quick-'));
    const r = await runCliInProcess([
      'quick',
      '--ports',
      `${closedPort},${vllm.port}`,
      '--budget',
      '6',
      '--out',
      out,
    ]);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Found vLLM 0.30.0-sim at http://127.0.0.1:${vllm.port}/v1, model sim/demo-7b`);
    // the plan it runs: its estimate, and the windows and answers with why they are that long
    // (4K, or 1K where 4K prompts would not prefill in half the budget: 6 s here)
    const plan = /^Measuring for about \d+ s: (1K|4K) × [\d–, and]+ users(, .* over the KV cache)?\.$/.exec(
      lines[1]!,
    );
    expect(plan, lines[1]).not.toBeNull();
    const ctx = plan![1]!;
    expect(lines[2]).toMatch(
      /^ {2}[\d.]+ s windows; answers of \d+ tokens, so that one user ends about \d+ a window\.$/,
    );
    const answer = lines.slice(lines.findIndex((l) => l.startsWith('Answer for')));
    expect(answer.length).toBeGreaterThanOrEqual(4);
    expect(answer.length).toBeLessThanOrEqual(10);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    expect(answer[0]).toBe('Answer for chat: ttft=2s,tok/s=20,share=90% (the default; --slo to change)');
    expect(answer[1]).toMatch(
      new RegExp(
        `^ {2}One user at ${ctx}: first token [\\d,]+ ms \\(new prompt [\\d,]+ ms\\), [\\d,.]+ tok/s$`,
      ),
    );
    expect(answer.some((l) => l.startsWith(`  ${ctx}: `) && l.includes(' at once'))).toBe(true);
    expect(answer.some((l) => l.startsWith(`Why not more at ${ctx}: `))).toBe(true);
    const report = answer.at(-1)!.replace('Full report: ', '');
    expect(report).toMatch(/report\.html$/);
    // A normal result: report and the answer read it like any run's.
    const result = loadResult(join(report, '..'));
    expect(result.status).toBe('complete');
    expect(result.engine.name).toBe('vllm');
    expect(result.decode.every((c) => c.status === 'Over capacity' || c.windowRequests)).toBe(true);
    expect(renderReport(result, 'txt')).toContain('The answer');
    expect(answerOf(result).contexts[0]!.cells.length).toBe(result.config.concurrency.length);
  });

  it('lists the servers and exits 14 when several answer and there is no terminal to ask on', async () => {
    const r = await runCliInProcess(['quick', '--ports', `${vllm.port},${ollama.port}`, '--budget', '5']);
    expect(r.code).toBe(14);
    expect(r.stdout).toContain(`vLLM 0.30.0-sim at http://127.0.0.1:${vllm.port}/v1, model sim/demo-7b`);
    expect(r.stdout).toMatch(
      new RegExp(`Ollama [^\\n]* at http://127\\.0\\.0\\.1:${ollama.port}/v1, model sim/tiny`),
    );
    expect(r.stderr).toMatch(
      /^error \[SEVERAL_SERVERS\]: 2 servers answered \(listed above\); quick measures one\. Pick one: `.* quick --base-url http:\/\/127\.0\.0\.1:\d+\/v1`\.\n$/,
    );
  });

  it('refuses politely, exit 13, when nothing answers', async () => {
    const r = await runCliInProcess(['quick', '--ports', String(closedPort)]);
    expect(r.code).toBe(13);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error [NO_SERVER]: no LLM server answered on this machine (ports ${closedPort}), so there is nothing to measure. ` +
        'Start one, or say where it is: `npx llm-inference-bench quick --base-url http://HOST:PORT/v1`.\n',
    );
  });
});

// A server that wants a key is a server: probe and run say AUTH_FAILED (rc 4), and so does quick, with the key's flag.
describe('quick: a server that needs an API key', () => {
  const url = () => `http://127.0.0.1:${keyed.port}/v1`;

  it('without a key or with a wrong one: AUTH_FAILED (rc 4), naming the server and --api-key', async () => {
    const none = await runCliInProcess(['quick', '--base-url', url()]);
    expect(none.code).toBe(4);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe(
      `error [AUTH_FAILED]: ${url()}: the server refused a request without an API key (HTTP 401: Unauthorized). ` +
        `Pass its key: \`npx llm-inference-bench quick --base-url ${url()} --api-key KEY\` (or --api-key-file, OPENAI_API_KEY).\n`,
    );
    const wrong = await runCliInProcess(['quick', '--base-url', url(), '--api-key', 'wrong']);
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toMatch(/^error \[AUTH_FAILED\]: \S+: the server refused the API key \(HTTP 401/);
    expect(wrong.stderr).toContain('Check the key given: `npx llm-inference-bench quick --base-url');
    expect(wrong.stderr).not.toContain('wrong'); // a key never reaches output
    // probe says the same of the same server
    const probe = await runCliInProcess(['probe', '--base-url', url()]);
    expect(probe.code).toBe(4);
  });

  it('found on the ports it scans and reported as needing a key, alone or beside another server', async () => {
    const alone = await runCliInProcess(['quick', '--ports', `${closedPort},${keyed.port}`]);
    expect(alone.code).toBe(4);
    expect(alone.stderr).toMatch(/^error \[AUTH_FAILED\]: http:\/\/127\.0\.0\.1:\d+\/v1: the server refused/);
    const two = await runCliInProcess(['quick', '--ports', `${keyed.port},${vllm.port}`]);
    expect(two.code).toBe(14);
    expect(two.stdout).toBe(
      `  http://127.0.0.1:${keyed.port}/v1: a server that needs an API key (--api-key)\n` +
        `  vLLM 0.30.0-sim at http://127.0.0.1:${vllm.port}/v1, model sim/demo-7b\n`,
    );
    // the pick offered is the server that answered
    expect(two.stderr).toContain(`quick --base-url http://127.0.0.1:${vllm.port}/v1\``);
  });
});
