import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Lexer, marked, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { renderShare, SHARE_MAX_LINES } from '../../src/report/share.js';
import type { RunResult } from '../../src/results/schema.js';
import { measureCapacity, SLO } from '../answer/capacity-rig.js';
import { measureEngine } from '../answer/engine-rig.js';
import { analysisOf } from '../../src/answer/analysis.js';
import { loadResult } from '../../src/results/read.js';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { runCliInProcess } from '../helpers/cli.js';
import { SEEDS, seedResult } from './seeds.js';
import { closedOnlyResult, levelsResult, PREFIX_ROW } from '../helpers/level-results.js';

// `share`: valid Markdown under 40 lines, rendered by a real Markdown parser (marked) and read back.
const tables = (md: string) => Lexer.lex(md).filter((t): t is Tokens.Table => t.type === 'table');
const text = (cells: Tokens.TableCell[]) => cells.map((c) => c.text);

describe('share', () => {
  it.each(SEEDS)(
    '$name: under 40 lines; the answer and the matrix parse as tables with every row',
    (seed) => {
      const r: RunResult = seedResult(seed.id);
      const md = renderShare(r, { reportCommand: 'llm-inference-bench report result.json' });
      expect(md.trimEnd().split('\n').length).toBeLessThan(SHARE_MAX_LINES);
      const [answer, glance] = tables(md);
      expect(text(answer!.header)).toEqual(['Context', 'Users at once', 'Why not more', 'What to change']);
      const contexts = [...new Set(r.decode.map((c) => c.contextTokens))].length;
      expect(answer!.rows.length).toBe(contexts);
      expect(text(glance!.header)).toEqual(['Context', '1', '2', '4', '8', '16', '32', '64', '128']);
      expect(glance!.rows.length).toBe(contexts);
      expect(glance!.rows.every((row) => row.length === 9)).toBe(true);
      const html = marked.parse(md, { async: false });
      expect(html.match(/<table>/g)?.length).toBe(2);
      expect(html).toContain('<strong>Hardware and engine:</strong>');
      expect(md).toContain('**Service level chat (the default; --slo to change)');
    },
  );

  it('H200 seed: the answer row and the glance cell say what the report says', () => {
    const [answer, glance] = tables(renderShare(seedResult(SEEDS[1].id)));
    expect(text(answer!.rows[0]!)).toEqual([
      '8K',
      '**4 users**',
      'first token late at 8 users (16 met it)',
      'measure 8K × 8 again (`npx llm-inference-bench run --base-url URL --contexts 8K --concurrency 8 --max-output 4096 --duration 30`); if it fails again: fewer users per server, or faster prefill (more GPUs)',
    ]);
    expect(text(glance!.rows[0]!)).toEqual([
      '**8K**',
      '176',
      '346',
      '512',
      '916',
      '1,412',
      '2,270',
      '2,794 Q',
      '1,584 Q',
    ]);
  });

  it('escapes what comes from the result: a hostile model name stays text', () => {
    const r = seedResult(SEEDS[0].id);
    r.target.model = '<img src=x onerror=alert(1)> | **bold**';
    const html = marked.parse(renderShare(r), { async: false });
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('the CLI writes it for a measured run, judged by --slo', async () => {
    const { dir } = await measureCapacity('vllm', 4, 200_000);
    const out = join(mkdtempSync(join(tmpdir(), 'lib-share-')), 'summary.md');
    const level = `ttft=${SLO.ttftMs}ms,tok/s=${SLO.tokensPerS}`;
    const r = await runCliInProcess(['share', dir, '--slo', level, '-o', out]);
    expect(r.code).toBe(0);
    const md = readFileSync(out, 'utf8');
    expect(md.split('\n').length).toBeLessThan(SHARE_MAX_LINES);
    const [answer] = tables(md);
    expect(text(answer!.rows[0]!).slice(0, 3)).toEqual([
      '1K',
      '**4 users**',
      'requests queue: the server runs 4 at once',
    ]);
  });

  it('the demo at 4K: the seats seen at 1K and 2K bind with the KV cache, and the what-if changes both', () => {
    // 16 users at 4K need 73,728 tokens of KV cache (65,536 now) and 16 seats: the run saw the server run about 8
    // at once at 1K × 16 and 2K × 16, so a larger KV cache alone would still queue (docs/method.md "Why the limit
    // is there").
    const r = loadResult(new URL('../fixtures/results/demo-busy.json', import.meta.url).pathname);
    const [answer] = tables(renderShare(r, { analysis: analysisOf(r) }));
    const at4k = text(answer!.rows.find((row) => row[0]!.text === '4K')!);
    expect(at4k[2]).toBe('about 8 seats and the KV cache both bind at 16 users');
    expect(at4k[3]).toMatch(
      /^vLLM: --max-num-seqs 16 and a KV cache of 73,728 tokens \(--gpu-memory-utilization\) together/,
    );
    expect(at4k[3]).toMatch(
      /\*What if \(predicted\):\* with --max-num-seqs 16 and a KV cache of 73,728 tokens \(--gpu-memory-utilization\): a twin of this run predicts 16 users at [\d.]+ tok\/s each.*all running at once: meets it/,
    );
    expect(at4k[3]).not.toContain('still queue');
  });

  it('llama.cpp -c 32768 -np 4 at 4K: both limits, both settings and their what-if', async () => {
    const r = await measureEngine({
      flavor: 'llamacpp',
      seats: 4,
      kvTokens: 32_768,
      contexts: [4096],
      concurrency: [1, 2, 4, 8],
      launch: true,
      overrides: { maxModelLen: 32_768 },
    });
    const [answer] = tables(renderShare(r, { analysis: analysisOf(r, SLO) }));
    const [ctx, users, why, change] = text(answer!.rows[0]!);
    expect([ctx, users, why]).toEqual(['4K', '**4 users**', '4 slots and the KV cache both bind at 8 users']);
    expect(change).toMatch(/^llama\.cpp: -np 8 -c 65,536 together \(one alone does not do it/);
    expect(change).toMatch(
      /\*What if \(predicted\):\* with -np 8 -c 65,536: a twin of this run predicts 8 users .*: meets it/,
    );
  });

  it("the footer's command writes the HTML report it names, judged by the same level", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'lib-share-')), 'run');
    mkdirSync(dir);
    copyFileSync(
      new URL('../fixtures/results/seed-001_e957ef8128caa214.json', import.meta.url),
      join(dir, 'result.json'),
    );
    const shared = await runCliInProcess(['share', dir, '--slo', 'tok/s=100']);
    expect(shared.code, shared.stderr).toBe(0);
    const command = /the full report in HTML, beside the result: `([^`]+)`/.exec(shared.stdout)![1]!;
    const words = command.split(' ');
    expect(words.slice(words.indexOf('report'))).toEqual([
      'report',
      dir,
      '--slo',
      'tok/s=100,share=90%',
      '--format',
      'html',
    ]);
    expect(existsSync(join(dir, 'report.html'))).toBe(false);
    const r = await runCliInProcess(words.slice(words.indexOf('report')));
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('Service level (--slo): at least 100 tok/s each, for 90% of requests');
  });

  it('a run with rates: requests per second per row beside the users at once, judged by --slo', () => {
    const md = renderShare(levelsResult());
    expect(md.trimEnd().split('\n').length).toBeLessThan(SHARE_MAX_LINES);
    expect(md).toMatch(
      /^### Llama-3\.1-8B on H100 · rates: how many users at once and requests per second\n/,
    );
    const rates = tables(md).find((t) => t.header[0]!.text === 'Row')!;
    expect(rates.rows.map(text)).toEqual([
      [
        '8K',
        '**2 req/s (3 too close to call)**',
        '4 users',
        'vLLM: --max-num-seqs 90 and a KV cache of 783,360 tokens (--gpu-memory-utilization) together (more KV cache runs no more at once, more seats do not fit)',
      ],
      [
        PREFIX_ROW,
        '**3.08 req/s (3.36 fails; 8 req/s client-bound)**',
        '4 users',
        'vLLM: raise --max-num-seqs, for room over the bursts (64 now); or the rate spread over replicas',
      ],
    ]);
    // Within 500 ms: 3 req/s's first tokens (700 ms) and 3.08 req/s's (520 ms) miss it
    const strict = tables(renderShare(levelsResult(), { slo: { ttftMs: 500, share: 0.9 } })).find(
      (t) => t.header[0]!.text === 'Row',
    )!;
    expect(strict.rows.map((r) => text(r)[1])).toEqual([
      '**2 req/s (3 fails)**',
      '**2.83 req/s (3.08 fails; 8 req/s client-bound)**',
    ]);
    expect(renderShare(closedOnlyResult())).not.toContain('req/s');
  });
});
