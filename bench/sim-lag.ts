// Does the sim keep up? Runs the sim CLI in its own process (tiny profile, 2 ms steps, maxNumSeqs 512) and
// keeps STREAMS streams in flight from this process for SECONDS, printing the sim's scheduler lag every second.
// Usage: npx tsx bench/sim-lag.ts [streams=512] [seconds=20]
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { Agent, request } from 'undici';
import { cliCommand } from '../test/helpers/cli.js';

const streams = Number(process.argv[2] ?? 512);
const seconds = Number(process.argv[3] ?? 20);

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
const host = new URL(url);
let requests = 0;
let failures = 0;

// A deliberately cheap client (raw sockets, bytes counted, nothing parsed) so the sim, not the client, is measured.
function streamOnce(slot: number): Promise<void> {
  const payload = JSON.stringify({
    model: 'sim/tiny',
    prompt: `slot ${slot} `.repeat(50),
    max_tokens: 500,
    ignore_eos: true,
    stream: true,
  });
  return new Promise((resolve) => {
    const sock = connect(Number(host.port), host.hostname);
    const done = () => {
      clearTimeout(timer);
      sock.destroy();
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
    sock.on('connect', () => {
      sock.write(
        `POST /v1/completions HTTP/1.1\r\nHost: ${host.host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
      );
      requests++;
    });
    sock.on('data', () => undefined);
    sock.on('error', () => {
      failures++;
      done();
    });
    sock.on('close', done);
  });
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
child?.kill('SIGTERM');
