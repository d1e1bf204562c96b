import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerOf } from '../../src/answer/answer.js';
import { quickAnswerLines } from '../../src/quick/lines.js';
import { renderCompare, renderReport } from '../../src/report/index.js';
import type { RunResult } from '../../src/results/schema.js';
import { RunIndex } from '../../src/web/run-index.js';
import { createApp } from '../../src/web/app.js';
import { measureCapacity, SLO } from '../answer/capacity-rig.js';
import { runCliInProcess } from '../helpers/cli.js';
import { SEEDS, seedResult } from './seeds.js';

// Identifiers in HTML prose sit in span.id (kept whole on a line); the text is what these checks read.
const withoutIdSpans = (html: string) => html.replace(/<span class="id">([^<]*)<\/span>/g, '$1');

// The answer comes first in every format and in serve, and a service level given to `report` judges an old
// result again from result.json alone (the request log deleted first). The result: vLLM with 4 seats whose
// requests decode at 100-80 tok/s (../answer/capacity-rig.ts). Under the default chat level (2 s) even 16 users
// meet it (a queued request waits one answer per 4 users ahead: 0.4 s at 8, 1.2 s at 16); under SLO (200 ms)
// 4 users do and 8 queue.
let result: RunResult;
let dir: string;
beforeAll(async () => {
  ({ result, dir } = await measureCapacity('vllm', 4, 200_000));
  rmSync(join(dir, 'requests.jsonl'));
});

describe('the answer in every report', () => {
  it('txt: first, within 80 columns, naming the capacity, the reason and the setting', () => {
    const txt = renderReport(result, 'txt', { width: 80, slo: SLO });
    const lines = txt.split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
    const at = (s: string) => lines.findIndex((l) => l.includes(s));
    expect(at('The answer')).toBeGreaterThan(0);
    expect(at('The answer')).toBeLessThan(at('Hardware'));
    expect(at('The answer')).toBeLessThan(at('Sustained decode'));
    expect(txt).toContain('Service level (--slo): first token within 200 ms and at least 40 tok/s each');
    expect(lines.find((l) => l.startsWith('  1K '))).toMatch(/^ {2}1K {4}4 users/);
    expect(txt).toContain('requests queue: the server runs 4 at once');
    expect(txt).toContain('raise --max-num-seqs (about 4 now)');
  });

  it('a top level met with requests queued names the seats, not more users to measure', () => {
    // Under the default chat level (2 s) 16 users meet it, but 12 of them wait for one of the 4 seats: up to three
    // answers of 32 tokens at 80 tok/s, 1.2 s (../answer/capacity-rig.ts).
    const txt = renderReport(result, 'txt', { width: 80 });
    const lines = txt.split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
    expect(lines.find((l) => l.startsWith('  1K '))).toMatch(
      /^ {2}1K {4}at least 16 users +[\d.,]+ {2}requests queue: the server runs 4 at$/,
    );
    const flat = txt.replace(/\s+/g, ' ');
    expect(flat).toMatch(
      /1K: At 16 users the level is met, but the server ran about 4 at once and the others waited for a first token \(TTFT p90 1,2\d\d ms\); more users would only wait longer in its queue\./,
    );
    expect(flat).toContain('Change (1K): vLLM: raise --max-num-seqs (about 4 now).');
    expect(flat).not.toContain('measure more users');
    const quick = quickAnswerLines(answerOf(result), { report: 'r.html', result: 'r' });
    expect(quick).toContain('Why not more at 1K: requests queue: the server runs 4 at once.');
    expect(quick).toContain('  Change: vLLM: raise --max-num-seqs (about 4 now).');
  });

  it('md and html: the command that measures a stalled cell again is code, the prose around it escaped', () => {
    const h200 = seedResult(SEEDS[1].id);
    const command =
      'npx llm-inference-bench run --base-url URL --contexts 8K --concurrency 8 --max-output 4096 --duration 30';
    expect(renderReport(h200, 'md')).toContain(
      `| measure 8K × 8 again (\`${command}\`); if it fails again: fewer users per server, or faster prefill (more GPUs) |`,
    );
    expect(withoutIdSpans(renderReport(h200, 'html'))).toContain(
      `<td data-label="What to change">measure 8K × 8 again (<code>${command}</code>); if it fails again: fewer users per server, or faster prefill (more GPUs)</td>`,
    );
  });

  it('md and html: first, with the same figures', () => {
    const md = renderReport(result, 'md', { slo: SLO });
    expect(md.indexOf('### The answer')).toBeGreaterThan(0);
    expect(md.indexOf('### The answer')).toBeLessThan(md.indexOf('### Hardware'));
    expect(md).toMatch(/\| 1K \| \*\*4 users\*\* \| 100% of \d+ requests met it at 4 users \|/);
    const html = renderReport(result, 'html', { slo: SLO });
    expect(html.indexOf('id="answer"')).toBeGreaterThan(0);
    expect(html.indexOf('id="answer"')).toBeLessThan(html.indexOf('class="kpis"'));
    expect(html).toContain('<strong>4 users</strong>');
    expect(withoutIdSpans(html)).toContain('raise --max-num-seqs (about 4 now)');
  });

  it('report --slo judges the stored result again without re-running or the request log', async () => {
    const path = join(dir, 'result.json');
    const before = readFileSync(path, 'utf8');
    const mtime = statSync(path).mtimeMs;
    const plain = await runCliInProcess(['report', path, '--width', '80']);
    const strict = await runCliInProcess(['report', path, '--width', '80', '--slo', 'ttft=200ms,tok/s=40']);
    const looser = await runCliInProcess(['report', path, '--width', '80', '--slo', 'ttft=1s,tok/s=40']);
    expect([plain.code, strict.code, looser.code]).toEqual([0, 0, 0]);
    expect(plain.stdout).toMatch(/\n {2}1K {4}at least 16 users /);
    expect(plain.stdout).toContain('Service level chat (the default; --slo to change)');
    expect(strict.stdout).toMatch(/\n {2}1K {4}4 users /);
    expect(looser.stdout).toMatch(/\n {2}1K {4}8 users /);
    // The suggested change, predicted by a twin of the run: at 200 ms, 8 seats for the 8 users that queued.
    expect(strict.stdout.replace(/\s+/g, ' ')).toContain(
      'What if (predicted): 1K with --max-num-seqs 8 (about 4 now): a twin of this run predicts 8 users',
    );
    expect(looser.stdout).toContain(
      'Service level (--slo): first token within 1 s and at least 40 tok/s each',
    );
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(statSync(path).mtimeMs).toBe(mtime);
    const bad = await runCliInProcess(['report', path, '--slo', 'ttft=soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^error \[CONFIG_INVALID\]: invalid options: --slo: ttft=soon: expected a time/,
    );
  });

  it("compare: each run's users at once first", () => {
    const txt = renderCompare([result, result], 'txt', { width: 80, slo: SLO });
    const lines = txt.split('\n');
    expect(lines.findIndex((l) => l.includes('The answer'))).toBeLessThan(
      lines.findIndex((l) => l.includes('Metadata')),
    );
    expect(txt).toContain('1K     A: 4 users (requests queue: the server runs 4 at once)');
    expect(txt).toContain('       B: 4 users');
    expect(renderCompare([result, result], 'md', { slo: SLO })).toContain(
      '| 1K | 4 users (requests queue: the server runs 4 at once) |',
    );
  });

  it('serve: the run page opens on the answer; ?slo= judges it again; a bad level is a 400', async () => {
    const index = new RunIndex({ roots: [join(dir, '..')], refreshEveryMs: 0 });
    await index.refresh();
    const app = createApp({ index, roots: [join(dir, '..')] });
    const get = (run: string, slo?: string) =>
      app.fetch(
        new Request(`http://127.0.0.1/report?${new URLSearchParams({ run, ...(slo ? { slo } : {}) })}`),
      );
    const id = (await index.runs())[0]!.id;
    const page = await (await get(id)).text();
    expect(page.indexOf('id="answer"')).toBeLessThan(page.indexOf('class="kpis"'));
    expect(page).toContain('<strong>at least 16 users</strong>');
    expect(await (await get(id, 'ttft=200ms,tok/s=40')).text()).toContain('<strong>4 users</strong>');
    const looser = await (await get(id, 'ttft=1s,tok/s=40')).text();
    expect(looser).toContain('<strong>8 users</strong>');
    expect(looser).toContain('value="ttft=1s,tok/s=40,share=90%"');
    expect((await get(id, 'fast')).status).toBe(400);
    // The what-if of the suggested change, marked as a prediction.
    expect(withoutIdSpans(await (await get(id, 'ttft=200ms,tok/s=40')).text())).toContain(
      '<strong>What if (predicted):</strong> 1K with --max-num-seqs 8 (about 4 now): a twin of this run predicts 8 users',
    );
  });
});
