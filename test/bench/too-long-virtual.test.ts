import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunEndedWithError } from '../../src/bench/ended-with-error.js';
import { BenchRun } from '../../src/bench/run.js';
import type { RunSettings } from '../../src/bench/settings.js';
import { isBenchError } from '../../src/errors.js';
import { silentProgress, type ProgressStart } from '../../src/progress/sink.js';
import { readRequestLines } from '../../src/results/io.js';
import { virtualRig, virtualSettings } from './virtual-run.js';

// Contexts too long for the server, known once the probe found its max model length (the tiny sim: 32,768 tokens).
// A reviewer's `run --contexts 2M` said "0 to measure, 1 skipped as too long", then prefilled the full window for
// minutes before failing. Every requested context too long: one line, before any request or folder. Some: a note
// as the run starts, nothing sent for them, and they are out of the estimate.
const settings = (out: string, extra: Partial<RunSettings>): RunSettings =>
  virtualSettings(out, { concurrency: [1], maxOutput: 64, duration: 1, prefillRepeats: 1, ...extra });

describe('contexts too long for the server (virtual time)', () => {
  it('every requested context too long: refused with one line, nothing sent, no folder', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-too-long-'));
    const rig = virtualRig();
    const run = new BenchRun(settings(out, { contexts: [65_536, 2_097_152] }), rig.deps);
    const error = await rig.drive(run.start()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isBenchError(error) && error.code).toBe('CONTEXT_TOO_LONG');
    expect(isBenchError(error) && error.message).toBe(
      "--contexts 64K,2M exceed the server's max model length 32,768 (32K) with 64 output tokens; " +
        'the longest it takes is 32,704',
    );
    expect(rig.sim.truth.all()).toEqual([]); // not even the connect request
    expect(readdirSync(out)).toEqual([]);
  });

  it('--prefill-contexts that fit keep the run going: only the decode contexts are skipped', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-too-long-'));
    const rig = virtualRig();
    const run = new BenchRun(settings(out, { contexts: [65_536], prefillContexts: [4096] }), rig.deps);
    await rig.drive(run.start()).catch(() => undefined);
    expect(rig.sim.truth.all().some((r) => r.promptTokens > 3000)).toBe(true); // the 4K prefill point ran
  });

  it('some too long: a note as the run starts, nothing sent for them, left out of the estimate', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-too-long-'));
    const rig = virtualRig();
    const notes: string[] = [];
    let start: ProgressStart | undefined;
    const run = new BenchRun(settings(out, { contexts: [1024, 65_536], runId: 'part' }), {
      ...rig.deps,
      progress: { ...silentProgress, start: (s) => (start = s), note: (t) => notes.push(t) },
    });
    const error = await rig.drive(run.start()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(notes).toEqual([
      "note: --contexts 64K is skipped (nothing is sent for it): it exceeds the server's max model length " +
        '32,768 (32K) with 64 output tokens; the longest it takes is 32,704.',
    ]);
    // 1K measured; the full window (32,512 tokens) prefilled; 64K never sent
    const sent = rig.sim.truth.all().map((r) => r.promptTokens);
    expect(sent.length).toBeGreaterThan(2);
    expect(Math.max(...sent)).toBeLessThanOrEqual(32_768);
    const lines = readRequestLines(join(out, 'part'));
    expect(lines.every((l) => l.contextTokens !== 65_536)).toBe(true);
    expect(start!.steps.every((s) => s.contextTokens !== 65_536 || s.estimateS === 0)).toBe(true);
    // the run measures what fits, then says what it skipped with the same words, exit code 6 (docs/method.md)
    expect(isBenchError(error) && error.code).toBe('CONTEXT_TOO_LONG');
    expect(isBenchError(error) && error.message).toBe(
      "--contexts 64K exceeds the server's max model length 32,768 (32K) with 64 output tokens; " +
        'the longest it takes is 32,704',
    );
    expect(existsSync(join(out, 'part', 'result.json'))).toBe(true);
    // what it measured comes with the error, whole: the CLI prints its answer and paths first
    expect(error instanceof RunEndedWithError && error.outcome.result.status).toBe('complete');
    expect(error instanceof RunEndedWithError && error.outcome.dir).toBe(join(out, 'part'));
  });
});
