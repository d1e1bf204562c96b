// End-to-end calibration: the real `run` CLI (the method, docs/method.md) against the HTTP sim for each seed profile,
// measured figures next to the seed's. The sim runs in this process, the client in its own (as a user would run
// them); `--time-scale` replays the hardware faster so short windows still cover large contexts, and every rate
// is scaled back before comparing. Usage:
//   npx tsx bench/calibrate.ts [--profiles rtx,h200] [--time-scale 4] [--duration 3] [--contexts 8K,32K,128K]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../src/results/schema.js';
import { startSim, type TruthRecord } from '../src/sim/index.js';
import { cliCommand } from '../test/helpers/cli.js';
import { benchArgs } from './lib/args.js';

interface SeedRow {
  phase: 'prefill' | 'decode';
  context: string;
  contextTokens: number;
  concurrency: number;
  status: string;
  totalTokPerS: number | null;
  perRequestTokPerS: number | null;
  ttftMs: number | null;
}

const PROFILES: Record<string, { name: string; seed: string; concurrency: string }> = {
  rtx: { name: 'rtx-pro-6000x8-glm-5.3-flash', seed: '000_9816ff1652ee407d.json', concurrency: '1,4,16,32' },
  h200: { name: 'h200x4-glm-5.3-flash-dflash', seed: '001_e957ef8128caa214.json', concurrency: '1,4,16,64' },
};

const values = benchArgs(
  {
    name: 'bench:calibrate',
    about: "The real run CLI against the HTTP sim for each seed profile, beside the seed's figures.",
  },
  {
    profiles: { type: 'string', default: 'rtx,h200', help: 'which seed profiles (rtx, h200)' },
    'time-scale': { type: 'number', default: 4, help: 'the sim replays the hardware this much faster' },
    duration: { type: 'number', default: 3, help: "each cell's window, seconds (before the time scale)" },
    contexts: { type: 'string', default: '8K,32K,128K', help: "the run's --contexts" },
    concurrency: { type: 'string', help: "the run's --concurrency; default the seed's" },
  },
);
const scale = values['time-scale'];
const seedDir = fileURLToPath(new URL('../test/fixtures/seeds/', import.meta.url));
const fmt = (v: number | null | undefined) =>
  v === null || v === undefined ? '—' : v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(1);
const pct = (a: number | null | undefined, b: number | null | undefined) =>
  a === null || a === undefined || !b ? '' : `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)}%`;
let within = 0;
let compared = 0;
let statusSame = 0;
let cells = 0;

function check(a: number | null | undefined, b: number | null | undefined): void {
  if (a === null || a === undefined || !b) return;
  compared++;
  if (Math.abs(a - b) / b <= 0.1) within++;
}

async function runOne(key: string): Promise<void> {
  const spec = PROFILES[key];
  if (!spec) throw new Error(`unknown profile key ${key} (rtx, h200)`);
  const dir = mkdtempSync(join(tmpdir(), `calibrate-${key}-`));
  const sim = await startSim({
    profile: spec.name,
    overrides: { timeScale: scale },
    truthLog: join(dir, 'truth.jsonl'),
  });
  // Warm the sim's code paths first, so the first measured request does not pay for the JIT.
  for (let i = 0; i < 3; i++) {
    const r = await fetch(`${sim.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [{ role: 'user', content: `warm-up ${i} `.repeat(500) }],
        max_tokens: 64,
        stream: true,
      }),
    });
    await r.text();
  }
  const started = Date.now();
  const { command, args } = cliCommand();
  const runArgs = [
    ...args,
    'run',
    '--base-url',
    sim.baseUrl,
    '--contexts',
    values.contexts,
    '--prefill-contexts',
    values.contexts,
    '--concurrency',
    values.concurrency ?? spec.concurrency,
    '--duration',
    String(values.duration),
    '--max-output',
    '4096',
    '--ramp-timeout',
    '15',
    '--prefill-repeats',
    '3',
    '--out',
    dir,
    '--quiet',
  ];
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(command, runArgs, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('close', resolve);
  });
  const lag = (await (await fetch(`${sim.url}/sim/lag`)).json()) as {
    p99Ms: number;
    maxMs: number;
    maxPassMs: number;
    maxPassCpuMs: number;
  };
  const truth = sim.truth();
  await sim.close();
  const runDir = readdirSync(dir).find((d) => !d.endsWith('.jsonl'));
  if (code !== 0 || !runDir) throw new Error(`run exited with ${code}`);
  const result = JSON.parse(readFileSync(join(dir, runDir, 'result.json'), 'utf8')) as RunResult;
  const seed = (JSON.parse(readFileSync(seedDir + spec.seed, 'utf8')) as { rows: SeedRow[] }).rows;
  const seedRow = (phase: string, c: number, n: number) =>
    seed.find((r) => r.phase === phase && r.contextTokens === c && r.concurrency === n);

  console.log(
    `\n### ${spec.name} (time scale ${scale}, ${values.duration} s windows, ${((Date.now() - started) / 1000).toFixed(0)} s wall)\n`,
  );
  console.log(
    '| phase | context | N | seed status | measured status | seed total tok/s | measured | Δ | seed per-request tok/s | measured | Δ |',
  );
  console.log('|---|---|---|---|---|---:|---:|---:|---:|---:|---:|');
  for (const p of result.prefill) {
    const s = seedRow('prefill', p.contextTokens, 1);
    const m = p.tokensPerS === null ? null : p.tokensPerS / scale;
    check(m, s?.totalTokPerS);
    cells++;
    if (s?.status === p.status) statusSame++;
    console.log(
      `| prefill | ${s?.context ?? p.contextTokens} | 1 | ${s?.status ?? '—'} | ${p.status} | ${fmt(s?.totalTokPerS)} | ${fmt(m)} | ${pct(m, s?.totalTokPerS)} | | | |`,
    );
  }
  for (const d of result.decode) {
    const s = seedRow('decode', d.contextTokens, d.concurrency);
    const total = d.totalTokensPerS === null ? null : d.totalTokensPerS / scale;
    const per = d.perRequestTokensPerS === null ? null : d.perRequestTokensPerS / scale;
    check(total, s?.totalTokPerS);
    check(per, s?.perRequestTokPerS);
    cells++;
    if (s?.status === d.status) statusSame++;
    console.log(
      `| decode | ${s?.context ?? d.contextTokens} | ${d.concurrency} | ${s?.status ?? '—'} | ${d.status} | ${fmt(s?.totalTokPerS)} | ${fmt(total)} | ${pct(total, s?.totalTokPerS)} | ${fmt(s?.perRequestTokPerS)} | ${fmt(per)} | ${pct(per, s?.perRequestTokPerS)} |`,
    );
  }
  // Where the client's prefill TTFT goes: the sim's own view of the first cold request of each context.
  const firstCold = new Map<number, TruthRecord>();
  for (const t of truth) {
    if (t.outputTokens !== 1 || t.cachedTokens !== 0 || t.firstTokenMs === undefined) continue;
    const key = Math.round(t.promptTokens / 1024);
    const prev = firstCold.get(key);
    if (!prev || t.arrivalMs < prev.arrivalMs) firstCold.set(key, t);
  }
  const views = [...firstCold.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([k, t]) => `${k}K ${Math.round((t.firstTokenMs! - t.arrivalMs) * scale)} ms`);
  console.log(
    `\nsim lag p99 ${lag.p99Ms.toFixed(2)} ms (max ${lag.maxMs.toFixed(2)} ms, longest pass ${lag.maxPassMs.toFixed(2)} ms, most CPU in a pass ${lag.maxPassCpuMs.toFixed(2)} ms); first cold request per context, TTFT at the sim (unscaled): ${views.join(', ')}`,
  );
}

console.log(
  `load average at start: ${loadavg()
    .map((x) => x.toFixed(1))
    .join(', ')} (${cpus().length} CPUs)`,
);
for (const key of values.profiles.split(',')) await runOne(key.trim());
console.log(
  `load average at end: ${loadavg()
    .map((x) => x.toFixed(1))
    .join(', ')}`,
);
console.log(`\n${within}/${compared} figures within 10% of the seed; ${statusSame}/${cells} statuses match.`);
