import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBenchError } from '../../src/errors.js';
import { parseJsonAs, parseResultText } from '../../src/results/read.js';
import { LoadLevel, RESULT_SCHEMA_VERSION, RunResult } from '../../src/results/schema.js';

// Result versions (docs/result-schema.md "Versions"): version 2 added load levels, all optional, so a version 1
// file reads as it is; a file from a newer tool is refused in one line that says what to do.
const V1 = join(import.meta.dirname, '../fixtures/results/synthetic-full.json');
const v1Text = readFileSync(V1, 'utf8');

const quantiles = (p50: number | null) => ({
  n: p50 === null ? 0 : 1,
  p50,
  p90: p50,
  p99: p50,
  intervals: { p50: null, p90: null, p99: null },
});

// One open level as a run writes it (figures hand-made: 10 arrivals in a 5 s window).
const handLevel: LoadLevel = {
  row: '4096',
  key: '4096@2/s',
  load: { model: 'open', rate: 2, arrival: 'poisson' },
  status: 'Valid',
  windowOpenMs: 1_000_000,
  windowCloseMs: 1_005_000,
  requests: { arrived: 10, completed: 9, failed: 1, unfinished: 0 },
  offeredRate: 2,
  achievedRate: 1.8,
  goodput: 1.6,
  sloShare: 0.8,
  ttftMs: quantiles(120),
  ttftFromSendMs: quantiles(118),
  itlMs: quantiles(20),
  e2eMs: quantiles(2100),
  outputTokens: 900,
  totalTokensPerS: 180,
  perRequestTokensPerS: quantiles(50),
  lag: { n: 10, p50Ms: 0.2, p99Ms: 0.9, maxMs: 1, limitMs: 50 },
  cache: { expectedTokens: 0, servedTokens: null, source: 'none', promptTokens: null, reported: 0 },
  windowRequests: { ttftMs: [120], tokensPerS: [50], failed: 1 },
};

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (isBenchError(e)) return `${e.code}: ${e.message} | ${e.hint ?? ''}`;
    throw e;
  }
  return 'no error';
}

describe('result versions', () => {
  it('writes version 2', () => {
    expect(RESULT_SCHEMA_VERSION).toBe(2);
  });

  it('reads a version 1 file unchanged, as version 2', () => {
    const raw = JSON.parse(v1Text) as Record<string, unknown>;
    expect(raw.version).toBe(1);
    const r = parseResultText(v1Text, V1);
    expect(r.version).toBe(2);
    // Every field but the version is the file's, value for value.
    expect({ ...r, version: 1 }).toEqual(raw);
    expect(r.levels).toBeUndefined();
  });

  it('reads a version 2 file with load levels and a rate search', () => {
    const doc = {
      ...(JSON.parse(v1Text) as object),
      version: 2,
      levels: [handLevel],
      rateSearch: [
        {
          row: '4096',
          slo: { ttftMs: 2000, share: 0.9 },
          start: 1,
          startFrom: 'default',
          steps: [
            { rate: 1, verdict: 'meets', level: '4096@1/s' },
            { rate: 2, verdict: 'fails', level: '4096@2/s' },
          ],
          highestMeeting: 1,
          lowestFailing: 2,
          done: false,
        },
      ],
    };
    const r = parseResultText(JSON.stringify(doc), 'r.json');
    expect(r.levels?.[0]?.key).toBe('4096@2/s');
    expect(r.rateSearch?.[0]?.steps.map((s) => s.verdict)).toEqual(['meets', 'fails']);
  });

  it('refuses a level whose load or status it does not know', () => {
    expect(LoadLevel.safeParse({ ...handLevel, status: 'Over capacity' }).success).toBe(false);
    expect(
      LoadLevel.safeParse({ ...handLevel, load: { model: 'open', rate: 2, arrival: 'bursty' } }).success,
    ).toBe(false);
    expect(LoadLevel.safeParse({ ...handLevel, load: { model: 'trace', timeScale: 2 } }).success).toBe(true);
  });

  it('refuses a version 3 file in one line that says what to do', () => {
    const v3 = JSON.stringify({ ...(JSON.parse(v1Text) as object), version: 3 });
    const said = refusal(() => parseResultText(v3, 'new/result.json'));
    expect(said).toMatch(
      /^RESULT_INVALID: new\/result\.json is a version 3 result, written by a newer llm-inference-bench; [\d.]+ reads versions up to 2\. \| .*npm install llm-inference-bench@latest/,
    );
    expect(said).not.toContain('\n');
    // Every reader of result files goes through parseJsonAs (serve's index reads a part of the schema).
    expect(refusal(() => parseJsonAs(RunResult.pick({ version: true }), v3, 'x.json'))).toMatch(
      /version 3 result, written by a newer/,
    );
    // A version that is no version at all is a schema problem, not a newer tool.
    const v0 = JSON.stringify({ ...(JSON.parse(v1Text) as object), version: 0 });
    expect(refusal(() => parseResultText(v0, 'old.json'))).toMatch(/not a valid result file: version/);
  });
});
