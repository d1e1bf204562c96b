// Does the sim keep up? Runs the sim CLI in its own process (tiny profile, 2 ms steps, maxNumSeqs 512) and
// keeps STREAMS streams in flight from this process for SECONDS, printing the sim's scheduler lag every second.
// Usage: npm run bench:sim-lag [-- --streams=512] [-- --seconds=20] (or bare: 512 20)
import { spawn } from 'node:child_process';
import { Agent, request } from 'undici';
import { cliCommand } from '../test/helpers/cli.js';
import { benchArgs } from './lib/args.js';

const { streams, seconds } = benchArgs(
  {
    name: 'bench:sim-lag',
    about: 'Whether the sim keeps up: its scheduler lag every second (SIM_URL=... measures a running sim).',
    positionals: ['streams', 'seconds'],
  },
  {
    streams: { type: 'number', default: 512, help: 'streams kept in flight' },
    seconds: { type: 'number', default: 20, help: 'how long' },
  },
);

// SIM_URL=... measures an already running sim (e.g. one started under --cpu-prof).
const external = process.env.SIM_URL;
const { command, args } = cliCommand();
const child = external
  ? undefined
  : spawn(
      command,
      [
        ...args,
        'sim',
        '--profile',
        'tiny',
        '--max-num-seqs',
        String(streams),
        '--kv-capacity',
        '4000000',
        '--port',
        '0',
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
const url =
  external ??
  (await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('sim did not start')), 30_000);
    child!.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /^(http:\/\/\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  }));

const agent = new Agent({ connections: 8 });
const deadline = Date.now() + seconds * 1000;
let requests = 0;
let failures = 0;

// Keep-alive connections, as the real client uses; bodies are drained, not parsed, so the sim is what is measured.
const pool = new Agent({ connections: streams, pipelining: 1, keepAliveTimeout: 60_000 });
async function streamOnce(slot: number): Promise<void> {
  const payload = JSON.stringify({
    model: 'sim/tiny',
    prompt: `slot ${slot} `.repeat(50),
    max_tokens: 500,
    ignore_eos: true,
    stream: true,
  });
  try {
    const res = await request(`${url}/v1/completions`, {
      method: 'POST',
      body: payload,
      headers: { 'content-type': 'application/json' },
      dispatcher: pool,
      signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
    });
    requests++;
    for await (const _chunk of res.body) {
      // drained
    }
  } catch {
    if (Date.now() < deadline) failures++;
  }
}

async function loop(slot: number): Promise<void> {
  while (Date.now() < deadline) await streamOnce(slot);
}

async function lag(): Promise<{
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  samples: number;
  maxPassMs: number;
  maxPassCpuMs: number;
  meanPassMs: number;
}> {
  const r = await request(`${url}/sim/lag`, { dispatcher: agent });
  return (await r.body.json()) as {
    p99Ms: number;
    maxMs: number;
    meanMs: number;
    samples: number;
    maxPassMs: number;
    maxPassCpuMs: number;
    meanPassMs: number;
  };
}

async function generated(): Promise<number> {
  const r = await request(`${url}/metrics`, { dispatcher: agent });
  const m = /^vllm:generation_tokens_total\{[^}]*\} (\d+)/m.exec(await r.body.text());
  return Number(m?.[1] ?? 0);
}

console.log(`sim-lag: ${streams} streams, ${seconds} s, tiny profile (2 ms steps), sim at ${url}`);
const loops = Array.from({ length: streams }, (_, i) => loop(i));
const t0 = Date.now();
let prevTokens = 0;
let prevSamples = 0;
for (let s = 1; s <= seconds; s++) {
  await new Promise((r) => setTimeout(r, Math.max(0, t0 + s * 1000 - Date.now())));
  const [l, g] = await Promise.all([lag(), generated()]);
  const steps = l.samples - prevSamples;
  console.log(
    `t=${String(s).padStart(3)} s  lag p99 ${l.p99Ms.toFixed(2)} ms  max ${l.maxMs.toFixed(2)} ms  mean ${l.meanMs.toFixed(2)} ms  ` +
      `pass mean ${l.meanPassMs.toFixed(2)} ms max ${l.maxPassMs.toFixed(2)} ms (cpu ${l.maxPassCpuMs.toFixed(2)})  passes/s ${steps}  tokens/s ${g - prevTokens}  requests ${requests}  failures ${failures}`,
  );
  prevTokens = g;
  prevSamples = l.samples;
}
await Promise.all(loops);
const final = await lag();
console.log(
  `final: lag p99 ${final.p99Ms.toFixed(2)} ms, max ${final.maxMs.toFixed(2)} ms, mean ${final.meanMs.toFixed(2)} ms; longest pass ${final.maxPassMs.toFixed(2)} ms (its CPU ${final.maxPassCpuMs.toFixed(2)} ms); ideal tokens/s ${Math.round((streams * 1000) / 2)}`,
);
await agent.close();
await pool.close();
child?.kill('SIGTERM');
