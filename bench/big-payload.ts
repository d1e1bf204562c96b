// bench:big-payload — a 1M-token prompt built (src/prompts) and sent (src/client streamRequest) to a loopback
// sink in its own process, then SSE events of 1.5 and 8 MB received. Targets: the 1M-token prompt
// built in < 1 s with < 64 MB extra memory. Usage: npm run bench:big-payload [-- --tokens=1000000]
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildRequestBody } from '../src/target/request-body.js';
import { getJson } from '../src/client/http.js';
import { streamRequest } from '../src/client/stream.js';
import { buildPromptText } from '../src/prompts/index.js';
import { boostPriority, table, writeOut } from './lib/out.js';
import { benchArgs } from './lib/args.js';

const ARGS = benchArgs(
  {
    name: 'bench:big-payload',
    about: 'A 1M-token prompt built and sent, and 1.5 and 8 MB SSE events received.',
  },
  { tokens: { type: 'number', default: 1_000_000, help: 'tokens of the big prompt' } },
);
const TOKENS = ARGS.tokens;
const MB = 1024 * 1024;
const SINK = fileURLToPath(new URL('./lib/sink-server.ts', import.meta.url));

// Peak of rss/heap/external+arrayBuffers above a baseline, sampled every 5 ms while fn runs.
async function measured<T>(
  fn: () => T | Promise<T>,
): Promise<{ value: T; ms: number; peak: Record<string, number> }> {
  global.gc?.();
  const b = process.memoryUsage();
  const peak = { rss: 0, heap: 0, external: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss - b.rss);
    peak.heap = Math.max(peak.heap, m.heapUsed - b.heapUsed);
    peak.external = Math.max(peak.external, m.external + m.arrayBuffers - b.external - b.arrayBuffers);
  };
  const timer = setInterval(sample, 5);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  sample();
  clearInterval(timer);
  return {
    value,
    ms,
    peak: {
      cpuMs: (c.user + c.system) / 1000,
      rssMb: peak.rss / MB,
      heapMb: peak.heap / MB,
      externalMb: peak.external / MB,
    },
  };
}

async function startSink(eventBytes: number) {
  const proc = spawn(process.execPath, ['--import', 'tsx', SINK, `--event-bytes=${eventBytes}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.setEncoding('utf8').once('data', (d: string) => resolve(d.trim()));
    proc.once('exit', (c) => reject(new Error(`sink exited ${c}`)));
  });
  return { url, stop: () => proc.kill('SIGTERM') };
}

async function main() {
  const priority = boostPriority();
  const rows: Array<Record<string, string | number | null>> = [];
  const info = {
    engine: { name: 'vllm' as const },
    model: 'sink',
    extensions: {
      ignoreEos: true,
      minTokens: true,
      streamOptions: true,
      continuousUsage: true,
      maxCompletionTokens: true,
    },
  };
  // Warm the builder's code paths on a small prompt so the 1M build measures the build, not JIT start-up.
  buildPromptText({ runId: 'warm', contextTokens: 4096, slot: 1, seed: 1 }, 4);
  const build = await measured(() =>
    buildPromptText({ runId: 'big', contextTokens: TOKENS, slot: 1, seed: 1 }, 4),
  );
  const text = build.value;
  rows.push({
    step: `build ${TOKENS / 1e6}M-token prompt text`,
    ms: build.ms,
    ...build.peak,
    bytes: text.length,
    note: 'target < 1000 ms, < 64 MB',
  });
  const body = await measured(() =>
    buildRequestBody(info as never, {
      api: 'chat',
      prompt: text,
      maxOutput: 3,
      ignoreEos: true,
      sampling: {},
    }),
  );
  rows.push({ step: 'request body object', ms: body.ms, ...body.peak, bytes: null, note: '' });

  for (const eventBytes of [1_500_000, 8_000_000]) {
    const sink = await startSink(eventBytes);
    try {
      const baseUrl = `${sink.url}/v1`;
      const sent = await measured(() =>
        streamRequest({ baseUrl, api: 'chat', body: body.value, requestId: 'big', keepText: true }),
      );
      const r = sent.value;
      const stats = await getJson(sink.url, '/stats', { timeoutMs: 5000 });
      const st = { bytes: 0, endMs: NaN, bigWriteMs: NaN, ...(stats.ok ? (stats.body as object) : {}) } as {
        bytes: number;
        endMs: number;
        bigWriteMs: number;
      };
      const ok =
        r.ok && r.outputTokens === 3 && r.chunks.length === 3 && (r.text?.length ?? 0) === eventBytes + 2;
      rows.push({
        step: `send ${(st.bytes / MB).toFixed(1)} MB body, receive a ${(eventBytes / MB).toFixed(1)} MB event`,
        ms: sent.ms,
        ...sent.peak,
        bytes: st.bytes,
        note: `upload ${(st.endMs - r.sentAtMs).toFixed(1)} ms (sent -> last byte at sink); big event write -> stamp ${(r.chunks[1]![0] - st.bigWriteMs).toFixed(1)} ms; record ${ok ? 'exact' : 'WRONG'}`,
      });
      if (!ok) process.exitCode = 1;
    } finally {
      sink.stop();
    }
  }
  process.stdout.write(table(rows));
  const path = writeOut('big-payload', {
    priority,
    tokens: TOKENS,
    target: { buildMs: 1000, extraMb: 64 },
    rows,
  });
  process.stdout.write(`\nJSON: ${path}\n`);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
