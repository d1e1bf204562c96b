import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Lexer, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { findAnomalies } from '../../src/report/anomalies.js';
import { renderReport } from '../../src/report/index.js';
import { CSV_HEADERS } from '../../src/report/csv.js';
import { parseResult, type RunResult } from '../../src/results/schema.js';
import { parseCsv } from '../helpers/csv-read.js';
import { runCliInProcess } from '../helpers/cli.js';
import { closedOnlyResult, levelsResult, PREFIX_ROW } from '../helpers/level-results.js';

// Markdown, HTML and the anomalies of a result with load levels (docs/workloads.md "Reports"). The fixture's
// figures are worked by hand in test/helpers/level-results.ts and test/report/levels-text.test.ts.
const tables = (md: string) => Lexer.lex(md).filter((t): t is Tokens.Table => t.type === 'table');
const cells = (row: Tokens.TableCell[]) => row.map((c) => c.text);

describe('Markdown with load levels', () => {
  it('answers in requests per second first, a table a row, every level with its figures', () => {
    const md = renderReport(levelsResult(), 'md');
    expect(md.indexOf('**Requests per second (arrivals at a rate)')).toBeLessThan(md.indexOf('### Hardware'));
    const [users, rates] = tables(md);
    const [fixed, prefix] = tables(md).filter((t) => t.header[0]!.text === 'Load');
    expect(cells(users!.rows[0]!).slice(0, 2)).toEqual(['8K', '**4 users**']);
    expect(rates!.rows.map(cells)).toEqual([
      [
        '8K',
        '**2 req/s (3 too close to call)**',
        '98% of 120 requests met it at 2 req/s (goodput 1.97 req/s)',
        '4 users',
        // 4 req/s: 4/s × 22.5 s = 90 at once, over 64 seats; 90 × (8,192 + 512) = 783,360 tokens over 400,000
        'At 4 req/s the arrivals keep about 90 running at once (4/s × 22.5 s each); the server runs 64 at once (launch command --max-num-seqs 64), and 90 at 8K with answers up to 512 need 783,360 tokens of KV cache, more than its 400,000: the others waited (TTFT p50 1,400 ms from arrival).',
        'vLLM: --max-num-seqs 90 and a KV cache of 783,360 tokens (--gpu-memory-utilization) together (more KV cache runs no more at once, more seats do not fit)',
      ],
      [
        PREFIX_ROW,
        '**3.08 req/s (3.36 fails; 8 req/s client-bound)**',
        '97% of 185 requests met it at 3.08 req/s (goodput 3 req/s)',
        '4 users',
        'At 3.36 req/s the arrivals keep about 60 running at once (3.36/s × 17.8 s each) on average, close to the 64 the server runs at once (launch command --max-num-seqs 64): bursts of arrivals pass it and wait for a seat (TTFT p50 1,100 ms from arrival).',
        'vLLM: raise --max-num-seqs, for room over the bursts (64 now); or the rate spread over replicas',
      ],
    ]);
    expect(cells(fixed!.header)).toEqual([
      'Load',
      'Offered req/s',
      'Achieved req/s',
      'Goodput req/s',
      'Met it (95% interval)',
      'Verdict',
      'TTFT p50 / p90 / p99',
      'ITL p50 / p99',
      'E2E p50 / p99',
      'Output tok/s',
      'Prefix cache served of expected',
      'Client lag p99',
      'Status',
    ]);
    // 4 req/s: 240 arrived, 192 ended ok in the window (3.20/s), 150 met it (2.50/s, 63%, Wilson 56–68%)
    expect(cells(fixed!.rows[3]!)).toEqual([
      '**4 req/s**',
      '4.00',
      '3.20',
      '2.50',
      '63% (56–68%)',
      'fails',
      '1,400 / 6,800 / 9,900 ms',
      '30.5 / 41.0 ms',
      '22.5 / 38.0 s',
      '1,640.2',
      '—',
      '2.1 ms',
      'Requests queued',
    ]);
    // 3.36 req/s: 202 arrivals (3.37/s); (202 - 4) x 2,048 = 405,504 cacheable, 151,552 served
    expect(cells(prefix!.rows[7]!).slice(0, 6)).toEqual([
      '**3.36 req/s**',
      '3.37',
      '3.27',
      '2.50',
      '74% (68–80%)',
      'fails',
    ]);
    expect(cells(prefix!.rows[7]!)[10]).toBe('151.6K of 405.5K (37%)');
    expect(cells(prefix!.rows[9]!).slice(3, 6)).toEqual(['—', '—', 'not judged']);
    expect(md).toContain('- 8K: 3 req/s is too close to call: 91% of 180 requests met it');
    expect(md).toContain(
      '- Rate search (--find-rate), from 1 req/s (given), 6 windows in req/s: 1 meets, 2 meets, 4 fails, 2.83 meets, 3.36 fails, 3.08 meets; done: 3.08 req/s and 3.36 req/s are within 10%.',
    );
  });

  it('a result without levels has no levels section and no rates in its answer', () => {
    const md = renderReport(closedOnlyResult(), 'md');
    expect(md).not.toContain('Load levels');
    expect(md).not.toContain('Requests per second');
  });
});

describe('HTML with load levels', () => {
  const html = renderReport(levelsResult(), 'html');

  it('puts each level in a row the anomalies link to, with its status and verdict', () => {
    expect(html).toContain('<section class="card " id="levels">');
    expect(html).toMatch(/<tr id="level-8192-4-s" class="st-queued"><td>4 req\/s<\/td>/);
    expect(html).toContain('<td data-label="Verdict" class="verdict v-close">too close to call</td>');
    expect(html).toContain('<a href="#level-8192-8-s">show level</a>');
    expect(html).toContain('table.data.levels{font-size:12.5px}');
    expect(renderReport(closedOnlyResult(), 'html')).not.toContain('table.data.levels');
  });

  it("draws the service level's TTFT bound and the line y = x where the figures put them", () => {
    const wide = html.slice(html.indexOf('id="levels"')).split('<div class="chart-w">').slice(1);
    // 8K's latency chart, log scale from 200 ms (below the lowest p50, 320) to 10 s (above 9,900) over y 312..30:
    // 2 s at 312 - ln(2,000 / 200) / ln(10,000 / 200) x 282 = 312 - 0.5886 x 282 = 146.0.
    expect(wide[0]).toContain('<line class="ref" x1="64.0" y1="146.0" x2="856.0" y2="146.0"');
    // 8K's goodput chart: x 0..5 over 72..848 (offered up to 4, 8% of air, steps of 1), y 0..4 over 312..30
    // (achieved up to 3.2); y = x from (0, 0) to (4, 4): 72 + 4/5 x 776 = 692.8.
    expect(wide[1]).toContain('<line class="ref" x1="72.0" y1="312.0" x2="692.8" y2="30.0"');
    expect(html).toContain('<span>service level: first token within 2 s</span>');
    expect(html).toContain('<span>client-bound (not judged)</span>');
  });
});

describe('anomalies of load levels', () => {
  const texts = (r: RunResult) =>
    findAnomalies(r)
      .filter((a) => a.phase === 'level')
      .map((a) => `${a.kind} ${a.severity}: ${a.text}`);

  it('flags a Failed and a Client-bound level, unfinished requests, cache misses and a server behind', () => {
    expect(texts(levelsResult())).toEqual([
      'failed error: Level 8K at 8 req/s failed: 468 of 480 requests failed (468 http_status).',
      'unfinished warn: 8K: requests had not finished 60 s after the window closed (--drain-timeout) and were aborted: 4 of 240 at 4 req/s. They count as missing the service level.',
      // 192 of 240 ended ok in the 60 s window: 3.20 of 4.00 req/s, 20% fewer
      'behind warn: 8K: the server could not keep up with its arrivals: it completed 3.20 req/s of the 4.00 offered at 4 req/s (20% fewer). While a server keeps up, it completes requests as fast as they arrive; below that, requests pile up in its queue and every wait grows with the window.',
      `client-bound warn: Level ${PREFIX_ROW} at 8 req/s is Client-bound: the client sent requests up to 60.6 ms behind their schedule (p99 48.5 ms, past 12.5 ms), so part of every timing is the client's own and the level is not judged; rerun with --workers N or on a quieter machine (docs/workloads.md "The client's lag").`,
      `unfinished warn: ${PREFIX_ROW}: requests had not finished 60 s after the window closed (--drain-timeout) and were aborted: 6 of 240 at 4 req/s. They count as missing the service level.`,
      // (202 - 4) x 2,048 = 405,504 cacheable, 151,552 served: 37%; (240 - 4) x 2,048 = 483,328, 98,304: 20%
      `prefix-cache warn: ${PREFIX_ROW}: the server served fewer prompt tokens from its prefix cache than the workload made cacheable: 151,552 of 405,504 at 3.36 req/s (37%) and 98,304 of 483,328 at 4 req/s (20%). Its prefix cache did not keep the shared prompts: evicted to make room for running requests, or turned off. vLLM keeps it on unless --no-enable-prefix-caching (check the launch command); a larger KV cache (--gpu-memory-utilization, --kv-cache-dtype fp8) keeps more of them.`,
      // 204 of 240: 3.40 of 4.00, 15% fewer; 3.36 req/s's 196 of 202 (3%) is within the 10% a server keeping up shows
      `behind warn: ${PREFIX_ROW}: the server could not keep up with its arrivals: it completed 3.40 req/s of the 4.00 offered at 4 req/s (15% fewer). While a server keeps up, it completes requests as fast as they arrive; below that, requests pile up in its queue and every wait grows with the window.`,
    ]);
  });

  it("names each engine's prefix-cache setting, and the launch command that turns it off", () => {
    const cache = (engine: string, launchCommand?: string) => {
      const r = levelsResult();
      r.engine.name = engine;
      if (launchCommand) r.launchCommand = launchCommand;
      return findAnomalies(r).find((a) => a.kind === 'prefix-cache')!.text;
    };
    expect(cache('vllm', 'vllm serve m --no-enable-prefix-caching')).toContain(
      'or turned off. The launch command turns it off (--no-enable-prefix-caching). vLLM keeps it on unless --no-enable-prefix-caching;',
    );
    expect(cache('sglang')).toContain(
      'SGLang keeps it on unless --disable-radix-cache (check the launch command)',
    );
    expect(cache('sim-llamacpp')).toContain('llama.cpp keeps it on unless --no-cache-prompt');
    expect(cache('ollama')).toContain(
      'Ollama keeps it on, with no setting to turn it off; a larger KV cache (OLLAMA_CONTEXT_LENGTH',
    );
    expect(cache('mystery-server')).toContain(
      "The server's own settings decide what it keeps; a larger KV cache (the memory it gives the KV cache)",
    );
  });

  it('says nothing of a level that kept up and served its cache', () => {
    const r = levelsResult();
    r.levels = r.levels!.filter((l) => l.status === 'Valid');
    expect(texts(r)).toEqual([]);
  });
});

describe('CSV and JSON with load levels', () => {
  const STRICT = { ttftMs: 500, share: 0.9 };
  const levelRows = (slo?: typeof STRICT) => {
    const [head, ...rows] = parseCsv(renderReport(levelsResult(), 'csv', slo ? { slo } : {}));
    const byKey = new Map(
      rows
        .filter((r) => r[0] === 'Load level')
        .map((r) => [`${r[head!.indexOf('Row')]}@${r[head!.indexOf('Load')]}`, r]),
    );
    return (key: string, column: string) => byKey.get(key)![head!.indexOf(column)];
  };

  it('one row a level, its figures under units in the header, judged under the report level', () => {
    const [head, ...rows] = parseCsv(renderReport(levelsResult(), 'csv'));
    expect(rows.filter((r) => r[0] === 'Load level')).toHaveLength(15);
    expect(head!.slice(0, CSV_HEADERS.length)).toEqual(CSV_HEADERS);
    const at = levelRows();
    // 3 req/s on 8K: 180 arrivals, 179 ended ok, 164 met it, in 60 s
    expect(at('8192@3 req/s', 'Context')).toBe('8K');
    expect(at('8192@3 req/s', 'Offered req/s')).toBe('3');
    expect(at('8192@3 req/s', 'Achieved req/s')).toBe('2.983');
    expect(at('8192@3 req/s', 'Goodput req/s')).toBe('2.733');
    expect(at('8192@3 req/s', 'Met service level ratio')).toBe('0.9111');
    expect(at('8192@3 req/s', 'Met service level 95% lo ratio')).toBe('0.8605');
    expect(at('8192@3 req/s', 'Met service level 95% hi ratio')).toBe('0.9445');
    expect(at('8192@3 req/s', 'Verdict')).toBe('too close to call');
    expect(at('8192@3 req/s', 'TTFT p90 ms')).toBe('1950');
    expect(at(`${PREFIX_ROW}@3.36 req/s`, 'Prefix cache expected tokens')).toBe('405504');
    expect(at(`${PREFIX_ROW}@3.36 req/s`, 'Prefix cache served tokens')).toBe('151552');
    expect(at(`${PREFIX_ROW}@8 req/s`, 'Verdict')).toBe('not judged');
    expect(at(`${PREFIX_ROW}@8 req/s`, 'Client lag p99 ms')).toBe('48.5');
    expect(at(`${PREFIX_ROW}@4 users`, 'Requests at once')).toBe('4');
    // Under ttft=500ms: 3.08 req/s's 185 arrivals all had their first token after 520 ms or 3 s
    const strict = levelRows(STRICT);
    expect(strict(`${PREFIX_ROW}@3.08 req/s`, 'Verdict')).toBe('fails');
    expect(strict(`${PREFIX_ROW}@3.08 req/s`, 'Goodput req/s')).toBe('0');
    expect(strict(`${PREFIX_ROW}@3.08 req/s`, 'Service level')).toBe('ttft=500ms,share=90%');
    expect(parseCsv(renderReport(closedOnlyResult(), 'csv'))[0]).toEqual(CSV_HEADERS);
  });

  it('json is the result with the answer judged under the report level', () => {
    const json = JSON.parse(renderReport(levelsResult(), 'json')) as RunResult & {
      answer: { rates: Array<{ row: string; highestRate: number; next: unknown; clientBound: number[] }> };
    };
    expect(parseResult(json).levels).toHaveLength(15);
    expect(json.answer.rates.map((x) => [x.row, x.highestRate, x.next, x.clientBound])).toEqual([
      ['8192', 2, { rate: 3, verdict: 'too close to call' }, []],
      [PREFIX_ROW, 3.08, { rate: 3.36, verdict: 'fails' }, [8]],
    ]);
    const strict = JSON.parse(renderReport(levelsResult(), 'json', { slo: STRICT })) as typeof json;
    expect(strict.answer.rates.map((x) => [x.highestRate, x.next])).toEqual([
      [2, { rate: 3, verdict: 'fails' }],
      [2.83, { rate: 3.08, verdict: 'fails' }],
    ]);
    // Without levels the answer has no rates: the users at once alone (test/report/report-slo.test.ts).
    const closed = JSON.parse(renderReport(closedOnlyResult(), 'json')) as { answer: { rates: unknown[] } };
    expect(closed.answer.rates).toEqual([]);
  });
});

describe('report --slo on the command line', () => {
  it('judges the levels again in csv and json from result.json alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'levels-cli-'));
    const file = join(dir, 'result.json');
    writeFileSync(file, JSON.stringify(levelsResult()));
    const json = await runCliInProcess(['report', file, '--format', 'json', '--slo', 'ttft=500ms']);
    expect(json.code).toBe(0);
    const answer = (JSON.parse(json.stdout) as { answer: { rates: Array<{ highestRate: number }> } }).answer;
    expect(answer.rates.map((x) => x.highestRate)).toEqual([2, 2.83]);
    const csv = await runCliInProcess(['report', file, '--format', 'csv', '--slo', 'ttft=500ms']);
    const [head, ...rows] = parseCsv(csv.stdout);
    const row = rows.find((r) => r[head!.indexOf('Load')] === '3.08 req/s')!;
    expect([row[head!.indexOf('Verdict')], row[head!.indexOf('Goodput req/s')]]).toEqual(['fails', '0']);
    const txt = await runCliInProcess(['report', file, '--slo', 'ttft=500ms', '--width', '80']);
    expect(txt.stdout).toContain('2.83 req/s meets the service');
  });
});

describe('the page of a run of load levels alone', () => {
  it('says its levels in the subtitle and a Load levels card, and no matrix of 0 cells', () => {
    const full = levelsResult();
    const alone = parseResult({ ...full, decode: [], prefill: [] });
    const html = renderReport(alone, 'html');
    const rows = [...new Set(full.levels!.map((l) => l.row))].length;
    expect(rows).toBe(2);
    expect(html).toContain(`${full.levels!.length} load levels (8K, shared-prefix)`);
    expect(renderReport(alone, 'md')).toContain(`${full.levels!.length} load levels (8K, shared-prefix)`);
    expect(html).not.toContain('concurrency levels ()');
    expect(html).not.toContain('>Matrix<');
    const count = (s: string) => full.levels!.filter((l) => l.status === s).length;
    expect(html).toContain(
      `${count('Valid')} valid · ${count('Requests queued')} queued · ${count('Client-bound')} client-bound · ${count('Failed')} failed`,
    );
    expect(count('Client-bound')).toBe(1);
    expect(count('Failed')).toBe(1);
    // With its closed loop the matrix card stays, beside the levels' card.
    const both = renderReport(full, 'html');
    expect(both).toContain('>Matrix<');
    expect(both).toContain('>Load levels<');
    expect(renderReport(alone, 'txt')).toContain(`${full.levels!.length} load levels`);
  });
});
