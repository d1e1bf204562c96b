// bench:serve-page — what one page of `serve` costs for a real run: the report page of the demo's result (its
// answer, and the what-if a twin of the run predicts), the first time and again, under the run's own service level
// and under another (?slo=), and the compare page of two demo runs. In-process through app.fetch (no socket), so the
// figures are the app's own. Prints a table and the load average; writes nothing outside a temporary folder.
// Usage: npm run bench:serve-page [-- --repeat=20] [-- --result=FILE --second=FILE]
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../src/web/app.js';
import { RunIndex } from '../src/web/run-index.js';
import { benchArgs } from './lib/args.js';

const fixture = (name: string) => fileURLToPath(new URL(`../test/fixtures/results/${name}`, import.meta.url));
const ARGS = benchArgs(
  { name: 'bench:serve-page', about: "One report page of serve, for the demo's result." },
  {
    repeat: { type: 'number', default: 20, help: 'times each page is asked for again' },
    result: {
      type: 'string',
      default: fixture('demo-busy.json'),
      help: 'the run whose report page is timed',
    },
    second: {
      type: 'string',
      default: fixture('demo-second.json'),
      help: 'a second run, for the compare page',
    },
  },
);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const worst = (xs: number[]) => Math.max(...xs);

async function main(): Promise<void> {
  const root = mkdtempSync(join(os.tmpdir(), 'bench-serve-page-'));
  try {
    for (const [id, file] of [
      ['demo', ARGS.result],
      ['second', ARGS.second],
    ] as const) {
      mkdirSync(join(root, id));
      copyFileSync(file, join(root, id, 'result.json'));
    }
    const index = new RunIndex({ roots: [root], refreshEveryMs: 60_000 });
    await index.refresh();
    const app = createApp({ index, roots: [root] });
    const page = async (path: string): Promise<number> => {
      const t = performance.now();
      const res = await app.fetch(new Request(`http://127.0.0.1${path}`));
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 200)}`);
      return performance.now() - t;
    };
    const load0 = os.loadavg();
    const rows: Array<[string, number, number, number]> = [];
    const views: Array<[string, string]> = [
      ["report page, the run's own service level", '/report?run=demo'],
      ['report page, ?slo=ttft=1s,tok/s=30', '/report?run=demo&slo=ttft%3D1s%2Ctok%2Fs%3D30'],
      ['compare page of two demo runs', '/compare?run=demo&run=second'],
    ];
    for (const [name, path] of views) {
      const first = await page(path);
      const again: number[] = [];
      for (let k = 0; k < ARGS.repeat; k++) again.push(await page(path));
      rows.push([name, first, median(again), worst(again)]);
    }
    const load1 = os.loadavg();
    console.log(
      `bench:serve-page · ${basename(ARGS.result)} · node ${process.version}, ${os.cpus().length} cores; load average ` +
        `${load0.map((x) => x.toFixed(2)).join(' ')} before, ${load1.map((x) => x.toFixed(2)).join(' ')} after`,
    );
    console.log('');
    console.log(`| page | first | again (median of ${ARGS.repeat}) | again (slowest) |`);
    console.log('| --- | ---: | ---: | ---: |');
    for (const [name, first, med, max] of rows)
      console.log(`| ${name} | ${first.toFixed(0)} ms | ${med.toFixed(0)} ms | ${max.toFixed(0)} ms |`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
