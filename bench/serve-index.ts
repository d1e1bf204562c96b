// bench:serve — the results browser over 5,000 synthetic runs: how long the first index
// takes (every result.json read), a walk with nothing changed (what each listing pays at most once a second),
// a restart from the cache file, and the pages a user opens: the list, a filtered list, the JSON list and the
// history of one cell across every run. In-process through app.fetch (no socket), so the figures are the
// app's own. Prints a table and the load average; writes nothing outside a temporary folder.
// Usage: npm run bench:serve [-- --runs=5000] [-- --samples=40]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/web/app.js';
import { RunIndex } from '../src/web/run-index.js';
import { fakeRun, writeRun } from '../test/web/fake-runs.js';
import { benchArgs } from './lib/args.js';

const ARGS = benchArgs(
  { name: 'bench:serve', about: 'The results browser over thousands of synthetic runs.' },
  {
    runs: { type: 'number', default: 5000, help: 'synthetic runs in the folder' },
    // Server samples per cell bring a file near a real run's size.
    samples: { type: 'number', default: 40, help: 'server samples per cell' },
  },
);
const RUNS = ARGS.runs;
const SAMPLES = ARGS.samples;
const REPEAT = 5;

const MODELS = ['llama-3-70b', 'qwen-32b', 'glm-5.3-flash', 'mistral-large', 'deepseek-v3'];
const ENGINES = ['vllm', 'sglang', 'trtllm', 'llamacpp'];
const GPUS = ['H200', 'H100', 'RTX PRO 6000', 'MI300X'];

function ms(f: () => unknown): number {
  const t = performance.now();
  f();
  return performance.now() - t;
}

async function msAsync(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const root = mkdtempSync(join(os.tmpdir(), 'bench-serve-'));
  const cacheFile = join(root, '.index-cache.json');
  try {
    let bytes = 0;
    const writeMs = ms(() => {
      for (let i = 0; i < RUNS; i++) {
        const model = MODELS[i % MODELS.length]!;
        const r = fakeRun(i, {
          model,
          engine: ENGINES[i % ENGINES.length]!,
          version: `0.${(i >> 4) % 12}.${i % 3}`,
          gpu: GPUS[(i >> 2) % GPUS.length]!,
          intervals: i % 2 === 0,
          samples: SAMPLES,
        });
        writeRun(root, `${model}/run-${String(i).padStart(5, '0')}`, r);
        bytes += JSON.stringify(r, null, 2).length + 1;
      }
    });
    const load0 = os.loadavg();
    const cold = new RunIndex({ roots: [root], cacheFile });
    const coldMs = await msAsync(() => cold.refresh());
    const walks: number[] = [];
    for (let k = 0; k < REPEAT; k++) walks.push(await msAsync(() => cold.refresh()));
    const restartMs = await msAsync(() => new RunIndex({ roots: [root], cacheFile }).refresh());

    const index = new RunIndex({ roots: [root], refreshEveryMs: 60_000 });
    await index.refresh();
    const app = createApp({ index, roots: [root] });
    const page = async (path: string) => {
      const res = await app.fetch(new Request(`http://127.0.0.1${path}`));
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      return body.length;
    };
    const views: Array<[string, string]> = [
      ['list, first 200 of all', '/'],
      ['list filtered (model + GPU)', '/?model=qwen-32b&gpu=H100'],
      ['JSON list of all runs', '/api/runs'],
      [`history of 8K × 4, all runs`, '/history?cell=8192x4&figure=totalTokensPerS'],
    ];
    const timed: Array<[string, number, number]> = [];
    for (const [name, path] of views) {
      const size = await page(path); // warm
      const xs: number[] = [];
      for (let k = 0; k < REPEAT; k++) xs.push(await msAsync(() => page(path)));
      timed.push([name, median(xs), size]);
    }
    // Every page starting a background walk: what a page costs while the index catches up.
    const walkIndex = new RunIndex({ roots: [root], refreshEveryMs: 0 });
    await walkIndex.refresh();
    const walkApp = createApp({ index: walkIndex, roots: [root] });
    const withWalk: number[] = [];
    for (let k = 0; k < REPEAT; k++)
      withWalk.push(
        await msAsync(async () => (await walkApp.fetch(new Request('http://127.0.0.1/'))).text()),
      );
    const listWithWalk = median(withWalk);
    const load1 = os.loadavg();

    const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
    console.log(
      `bench:serve · ${RUNS.toLocaleString('en-US')} runs, ${mb(bytes)} of result.json (${(bytes / RUNS / 1000).toFixed(1)} KB each), written in ${(writeMs / 1000).toFixed(1)} s`,
    );
    console.log(
      `node ${process.version}, ${os.cpus().length} cores; load average ${load0.map((x) => x.toFixed(2)).join(' ')} before, ${load1.map((x) => x.toFixed(2)).join(' ')} after`,
    );
    console.log('');
    console.log('| step | time |');
    console.log('| --- | ---: |');
    console.log(
      `| first index (read every result.json, validate the fields it keeps) | ${coldMs.toFixed(0)} ms |`,
    );
    console.log(`| walk with nothing changed (median of ${REPEAT}) | ${median(walks).toFixed(0)} ms |`);
    console.log(`| restart from the cache file (walk, no file read) | ${restartMs.toFixed(0)} ms |`);
    for (const [name, t, size] of timed) console.log(`| ${name} (${mb(size)} page) | ${t.toFixed(0)} ms |`);
    console.log(
      `| list, first 200 of all, while a walk runs in the background | ${listWithWalk.toFixed(0)} ms |`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
