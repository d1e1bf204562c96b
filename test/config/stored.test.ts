import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultSkeleton } from '../../src/bench/result-state.js';
import { toRunSettings } from '../../src/cli/run-settings.js';
import { OPTIONS, mergeResume, storedValue } from '../../src/config/index.js';
import { buildPlan } from '../../src/plan/plan.js';
import { parseResult, type RunResult } from '../../src/results/schema.js';
import { runCliInProcess } from '../helpers/cli.js';
import { parseRunFlags } from '../helpers/parse-run.js';
import { bareTargetInfo } from '../helpers/target-info.js';

const parse = parseRunFlags;

const info = bareTargetInfo();

// Every option the runner writes from its settings, each set away from its default.
const ALL_FLAGS = [
  ['--contexts', '2K,4K'],
  ['--prefill-contexts', '1K,2K'],
  ['--concurrency', '1,3'],
  ['--max-output', '300'],
  ['--duration', '2.5'],
  ['--prefill-repeats', '2'],
  ['--ramp-timeout', '7'],
  ['--settle-timeout', '8'],
  ['--settle-pause', '0.3'],
  ['--metrics-interval', '0.4'],
  ['--no-ignore-eos'],
  ['--temperature', '0.7'],
  ['--top-p', '0.9'],
  ['--top-k', '40'],
  ['--workers', '2'],
  ['--agents', '3'],
  ['--seed', '5'],
  ['--run-id', 'rt-1'],
  ['--title', 'Round trip'],
].flat();

function storedRun(argv: string[]): RunResult {
  const { options } = parse(argv);
  const settings = toRunSettings(options, undefined);
  const plan = buildPlan({
    maxModelLen: 8192,
    maxOutput: settings.maxOutput,
    contexts: settings.contexts!,
    prefillContexts: settings.prefillContexts!,
    concurrency: settings.concurrency!,
  });
  const skeleton = resultSkeleton({
    runId: settings.runId!,
    settings,
    baseUrl: 'http://127.0.0.1:9/v1',
    info,
    plan,
    maxModelLen: 8192,
    kvCapacityTokens: undefined,
    startedAt: '2026-12-03T00:00:00.000Z',
  });
  return parseResult(JSON.parse(JSON.stringify(skeleton)));
}

describe('options round-trip through result.json', () => {
  it('stores every config and sampling option under its table name, as given', () => {
    const { options } = parse(ALL_FLAGS);
    const r = storedRun(ALL_FLAGS);
    const written = OPTIONS.filter((o) => o.commands.includes('run') && o.result !== undefined).filter(
      (o) => o.result === 'config' || o.result === 'sampling' || o.result === 'runId' || o.result === 'title',
    );
    expect(written.map((o) => o.key)).toContain('settlePause');
    expect(written.map((o) => o.key)).toContain('metricsInterval');
    for (const o of written)
      expect(storedValue(r, o), o.key).toEqual((options as Record<string, unknown>)[o.key]);
    expect(r.config.sampling).toEqual({ temperature: 0.7, top_p: 0.9, top_k: 40 });
  });

  it('leaves out of the result only secrets and per-invocation switches', () => {
    const unstored = OPTIONS.filter((o) => o.commands.includes('run') && o.result === undefined).map(
      (o) => o.key,
    );
    // The agents' address, token and patience belong to the deployment (docs/distributed.md); their count is stored.
    expect(unstored.sort()).toEqual([
      'agentIndex',
      'agentTimeout',
      'agentTokenFile',
      'agentWait',
      'apiKey',
      'apiKeyFile',
      'config',
      'coordinator',
      'local',
      'out',
      'quiet',
      'resume',
    ]);
  });

  it('--resume takes the stored values, names the flags that differ and keeps --base-url', () => {
    const stored = storedRun(ALL_FLAGS);
    const now = parse(['--duration', '9', '--settle-pause', '0.3', '--base-url', 'http://127.0.0.1:7/v1']);
    const { options, ignored } = mergeResume(stored, now.options, now.given);
    expect(ignored).toEqual(["--duration 9 (the run's 2.5)"]);
    expect(options.duration).toBe(2.5);
    expect(options.metricsInterval).toBe(0.4); // not given: the stored value, silently
    expect(options.settlePause).toBe(0.3);
    expect(options.workers).toBe(2);
    expect(options.topP).toBe(0.9);
    expect(options.ignoreEos).toBe(false);
    expect(options.baseUrl).toBe('http://127.0.0.1:7/v1');
    const more = parse(['--contexts', '8K', '--top-k', '5']);
    expect(mergeResume(stored, more.options, more.given).ignored).toEqual([
      "--contexts 8192 (the run's 2048,4096)",
      "--top-k 5 (the run's 40)",
    ]);
  });

  it('--resume without --base-url continues against the stored server; --engine stays a hint', () => {
    const stored = storedRun([...ALL_FLAGS, '--base-url', 'http://127.0.0.1:9/v1']);
    stored.target.baseUrl = 'http://10.0.0.5:8000/v1';
    stored.engine.name = 'sglang';
    const none = parse(['--resume', 'x']);
    expect(mergeResume(stored, none.options, none.given).options.baseUrl).toBe('http://10.0.0.5:8000/v1');
    expect(mergeResume(stored, none.options, none.given).options.engine).toBeUndefined();
    const hint = parse(['--engine', 'vllm']);
    const hinted = mergeResume(stored, hint.options, hint.given);
    expect([hinted.options.engine, hinted.ignored]).toEqual(['vllm', []]);
  });

  it('a result from before an option was stored keeps the flag or the default, not nothing', () => {
    const stored = storedRun(ALL_FLAGS);
    delete stored.config.rampTimeout;
    delete stored.config.repeats;
    delete stored.title;
    const now = parse(['--ramp-timeout', '12', '--title', 'new']);
    const { options, ignored } = mergeResume(stored, now.options, now.given);
    expect(options.rampTimeout).toBe(12); // given: the flag
    expect(options.repeats).toBe(1); // the default
    expect(options.title).toBeUndefined(); // no default: the stored run had none
    expect(ignored).toEqual(["--title new (the run's none)"]);
  });

  it('prints one warning line naming the ignored flags when a run is resumed', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'lib-resume-')), 'run-1');
    mkdirSync(dir);
    const fixture = new URL('../fixtures/results/synthetic-full.json', import.meta.url);
    const r = JSON.parse(readFileSync(fixture, 'utf8')) as RunResult;
    r.status = 'interrupted';
    r.target.baseUrl = 'http://127.0.0.1:9/v1'; // nothing listens: the run stops at the probe
    writeFileSync(join(dir, 'result.json'), JSON.stringify(r));
    const out = await runCliInProcess(['run', '--resume', dir, '--duration', '9', '--seed', '7']);
    const lines = out.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(lines).toEqual([
      "warning: --resume continues the stored run with its own settings; ignored: --duration 9 (the run's 10)",
    ]);
    expect(out.stderr).toMatch(/error \[TARGET_UNREACHABLE\]/);
    const quiet = await runCliInProcess(['run', '--resume', dir, '--duration', '9', '--quiet']);
    expect(quiet.stderr).toMatch(/^error \[TARGET_UNREACHABLE\]: [^\n]*\n$/);
  });
});
