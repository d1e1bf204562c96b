// Every public function that takes an options object refuses a name it does not take (docs/api.md "Options are
// checked"): from JavaScript, buildRequestBody's old `maxTokens` was ignored in silence and the server answered
// with its default of 16 tokens. Each call below is what a JavaScript caller could write; the casts stand for the
// missing type checker.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from '../../src/index.js';
import { BenchError, type RunResult, type TargetInfo } from '../../src/index.js';
import { syntheticResult } from '../report/synthetic.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- a JavaScript caller's objects, untyped on purpose */
const loose = (o: Record<string, unknown>) => o as any;

const info = {
  engine: { name: 'vllm' },
  model: 'sim/tiny',
  extensions: { streamOptions: true, continuousUsage: true, ignoreEos: true },
} as unknown as TargetInfo;
const result: RunResult = syntheticResult();
const base = { baseUrl: 'http://127.0.0.1:9/v1' };

// [function, a call with one wrong key, the message it must give]
const CASES: Array<[string, () => unknown, string]> = [
  [
    'buildRequestBody',
    () => api.buildRequestBody(info, loose({ api: 'chat', prompt: 'Hi', maxTokens: 64, ignoreEos: false })),
    'buildRequestBody: unknown option maxTokens (renamed: it is now maxOutput).',
  ],
  [
    'streamRequest',
    () => api.streamRequest(loose({ ...base, api: 'chat', body: {}, timeout: { idleMs: 5 } })),
    'streamRequest: unknown option timeout (did you mean timeouts?).',
  ],
  [
    'StreamSession',
    () => new api.StreamSession(loose({ keepTexts: true })),
    'StreamSession: unknown option keepTexts (did you mean keepText?).',
  ],
  [
    'getJson',
    () => api.getJson(base.baseUrl, '/models', loose({ timeout: 100 })),
    'getJson: unknown option timeout (did you mean timeoutMs?).',
  ],
  [
    'getText',
    () => api.getText(base.baseUrl, '/models', loose({ apikey: 'k' })),
    'getText: unknown option apikey (did you mean apiKey?).',
  ],
  [
    'postJson',
    () => api.postJson(base.baseUrl, '/tokenize', {}, loose({ header: {} })),
    'postJson: unknown option header (did you mean headers?).',
  ],
  [
    'probeTarget',
    () => api.probeTarget(loose({ ...base, gpuName: 'H200' })),
    'probeTarget: unknown option gpuName.',
  ],
  [
    'createMetricsSampler',
    () => api.createMetricsSampler(info, loose({ ...base, interval: 500 })),
    'createMetricsSampler: unknown option interval (did you mean intervalMs?).',
  ],
  [
    'createPromptFactory',
    () =>
      api.createPromptFactory(
        loose({ ...base, runId: 'r', seed: 1, model: 'm', api: 'chat', tokenizer: () => 1 }),
      ),
    'createPromptFactory: unknown option tokenizer (did you mean tokenize?).',
  ],
  [
    'renderReport',
    () => api.renderReport(result, 'txt', loose({ colour: false })),
    'renderReport: unknown option colour (did you mean color?).',
  ],
  [
    'renderReport',
    () => api.renderReport(result, 'txt', loose({ whatIf: [] })),
    'renderReport: unknown option whatIf (renamed: it is now analysis (analysisOf(result, slo))).',
  ],
  [
    'renderCompare',
    () => api.renderCompare([result, result], 'txt', loose({ verbos: true })),
    'renderCompare: unknown option verbos (did you mean verbose?).',
  ],
  [
    'buildPlan',
    () => api.buildPlan(loose({ maxOutput: 512, context: [1024] })),
    'buildPlan: unknown option context (did you mean contexts?).',
  ],
  [
    'estimateDuration',
    () =>
      api.estimateDuration(
        api.buildPlan({ maxOutput: 512, contexts: [1024], concurrency: [1] }),
        loose({ durationS: 10, prefillRepeats: 3 }),
      ),
    'estimateDuration: unknown option durationS (renamed: it is now duration).',
  ],
  [
    'windowFigures',
    () => api.windowFigures([], loose({ openMs: 0, endMs: 1000 })),
    'windowFigures: unknown option endMs.',
  ],
  [
    'BenchRun',
    () => new api.BenchRun(loose({ ...base, durationS: 10, outDir: 'results' })),
    'BenchRun: unknown options durationS (renamed: it is now duration), outDir (renamed: it is now out).',
  ],
  [
    'BenchRun (deps)',
    () => new api.BenchRun(base, loose({ writeReport: async () => [] })),
    'BenchRun (deps): unknown option writeReport (did you mean writeReports?).',
  ],
  [
    'startSim',
    () => api.startSim(loose({ profle: 'tiny' })),
    'startSim: unknown option profle (did you mean profile?).',
  ],
  [
    'detectHardware',
    () => api.detectHardware(loose({ local: false, override: {} })),
    'detectHardware: unknown option override (did you mean overrides?).',
  ],
  [
    'applyHardwareOverrides',
    () => api.applyHardwareOverrides({ source: 'none' }, loose({ gpus: 2 })),
    'applyHardwareOverrides: unknown option gpus.',
  ],
];

// Refused at the call, before anything is sent, started or read: thrown, or the returned promise rejected (an
// async function's way of throwing).
async function thrown(call: () => unknown): Promise<BenchError> {
  try {
    await call();
  } catch (e) {
    expect(e).toBeInstanceOf(BenchError);
    return e as BenchError;
  }
  throw new Error('the call did not throw');
}

describe('public options are checked by name', () => {
  it.each(CASES)('%s names the unknown key', async (fn, call, message) => {
    const e = await thrown(call);
    expect(e.code).toBe('USAGE');
    expect(e.message).toBe(message);
    expect(e.hint).toMatch(new RegExp(`^${fn.replace(/[()]/g, '\\$&')} takes \\w+, `));
    expect(e.hint).toContain('CHANGELOG.md names every renamed option.');
  });

  it('covers every function docs/api.md names as taking options', () => {
    const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Options are checked'));
    const named = [...section.slice(0, section.indexOf('refuses')).matchAll(/`(\w+)`/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(15);
    expect(new Set(CASES.map(([fn]) => fn.replace(' (deps)', '')))).toEqual(new Set(named));
  });

  it('BenchRun: the settings flattened since 0.7.0 say where they went; old hardware overrides are refused', async () => {
    expect(
      (await thrown(() => new api.BenchRun(loose({ ...base, engineFlags: { backend: 'cuda' } })))).message,
    ).toBe(
      'BenchRun: unknown option engineFlags (renamed: it is now engineVersion, engineCommit, backend, build and repository, each a setting of its own).',
    );
    expect(
      (await thrown(() => new api.BenchRun(loose({ ...base, sampling: { temperature: 0 } })))).message,
    ).toContain('sampling (renamed: it is now temperature, topP and topK, each a setting of its own)');
    expect(
      (await thrown(() => new api.BenchRun(loose({ ...base, hardware: { gpuName: 'H200' } })))).message,
    ).toBe(
      'BenchRun: hardware is a complete description with its source (as demo passes for the sim); GPU facts for the report are the settings gpuName, gpuCount and gpuMemoryGb now.',
    );
  });

  it('the names they take pass, and a body gets its output cap', () => {
    const body = api.buildRequestBody(info, { api: 'chat', prompt: 'Hi', maxOutput: 64, ignoreEos: false });
    expect(body.max_tokens).toBe(64);
    expect(() => new api.BenchRun({ ...base, duration: 10, out: 'results', gpuName: 'H200' })).not.toThrow();
    expect(() => api.renderReport(result, 'txt', { color: false, width: 80 })).not.toThrow();
    // The analysis holds the level it was judged by: a level beside it could only disagree.
    expect(() =>
      api.renderReport(result, 'txt', {
        slo: { ttftMs: 1000, share: 0.9 },
        analysis: api.analysisOf(result),
      }),
    ).toThrow('renderReport: pass slo or analysis, not both.');
  });

  it('CHANGELOG.md names every rename the checks know', () => {
    const log = readFileSync(new URL('../../CHANGELOG.md', import.meta.url), 'utf8');
    expect(log).toMatch(/^## Unreleased$/m);
    expect(log).toMatch(/^## 0\.7\.0$/m);
    for (const [from, to] of [
      ['maxTokens', 'maxOutput'],
      ['durationS', 'duration'],
      ['rampTimeoutS', 'rampTimeout'],
      ['settleTimeoutS', 'settleTimeout'],
      ['settlePauseS', 'settlePause'],
      ['metricsIntervalS', 'metricsInterval'],
      ['outDir', 'out'],
      ['resumeDir', 'resume'],
    ])
      expect(log).toContain(`\`${from}\` is \`${to}\``);
    for (const old of ['engineFlags', 'sampling', 'hardware', 'rampS', 'settleS', 'prefillTokensPerS'])
      expect(log).toContain(`\`${old}`);
  });
});
