import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StreamFn } from '../../src/bench/drive/context.js';
import { BenchRun } from '../../src/bench/run.js';
import type { RunSettings } from '../../src/bench/settings.js';
import { silentProgress } from '../../src/progress/sink.js';
import { virtualRig, virtualSettings } from './virtual-run.js';

// The runner against the sim in virtual time (test/bench/virtual-run.ts): no sockets, no real waiting.
const settings = (out: string, extra: Partial<RunSettings> = {}): RunSettings =>
  virtualSettings(out, {
    contexts: [1024, 4096],
    prefillContexts: [1024],
    concurrency: [1, 4],
    maxOutput: 50,
    duration: 1,
    runId: undefined,
    ...extra,
  });
// Prompts that name their context and slot, so each request shows which slot prompt it carried.
const createPrompts = async () => ({
  prompt: async (c: number, slot: number) => ({ text: `p${c}-${slot}`, estTokens: c }),
});
const rig = (extra: Parameters<typeof virtualRig>[0] = {}) =>
  virtualRig({ info: { kvCapacityTokens: 20_000 }, ...extra, deps: { createPrompts, ...extra.deps } });

describe('BenchRun (the sim in virtual time)', () => {
  it('is an object that can be started twice in one process', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-run-'));
    const prompts: string[] = []; // "<context>-<slot>" of every request, from the prompt text the slot built
    const r = rig();
    const inner = r.deps.stream!;
    const stream: StreamFn = (o) => {
      prompts.push(/p(\d+-\d+)/.exec(JSON.stringify(o.body))?.[1] ?? 'none');
      return inner(o);
    };
    const run = new BenchRun(settings(out), { ...r.deps, stream });
    const a = await r.drive(run.start());
    const firstRun = [...prompts];
    const b = await r.drive(run.start());
    expect(a.result.runId).not.toBe(b.result.runId);
    for (const o of [a, b]) {
      expect(o.result.status).toBe('complete');
      // 4K x 4: 4 x (4096 + 50) = 16,584 <= 20,000 runs; all four cells measured
      expect(o.result.decode.map((c) => c.status)).toEqual(['Valid', 'Valid', 'Valid', 'Valid']);
      expect(o.result.prefill).toHaveLength(1);
      expect(o.result.prefill[0]!.repeats).toHaveLength(2);
      const onDisk = JSON.parse(readFileSync(o.resultPath, 'utf8'));
      expect(onDisk).toEqual(JSON.parse(JSON.stringify(o.result)));
    }
    // slot prompts: the connect request is slot 0; prefill repeat 1 is slot 1 (the cache the decode cells then
    // reuse), repeat 2 a fresh slot no cell uses; each context's cells use slots 1..N and no others
    expect(firstRun.slice(0, 3)).toEqual(['1024-0', '1024-1', expect.stringMatching(/^1024-\d+$/)]);
    const fresh = Number(firstRun[2]!.split('-')[1]);
    expect(fresh).toBeGreaterThan(4);
    for (const c of [1024, 4096]) {
      const slots = new Set(
        firstRun.slice(3).flatMap((p) => (p.startsWith(`${c}-`) ? [Number(p.split('-')[1])] : [])),
      );
      expect([...slots].sort((x, y) => x - y)).toEqual([1, 2, 3, 4]);
    }
    // every slot of a cell is re-sent in its window: the closed loop keeps N in flight
    const perSlot = (c: number, slot: number) => firstRun.slice(3).filter((p) => p === `${c}-${slot}`).length;
    for (const c of [1024, 4096])
      for (let slot = 2; slot <= 4; slot++) expect(perSlot(c, slot)).toBeGreaterThan(3);
  });

  it('interrupts at once and resumes in a new object without redoing finished cells', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-run-'));
    const s = settings(out, { runId: 'x', contexts: [1024], concurrency: [1, 2, 4] });
    const r = rig();
    const run: BenchRun = new BenchRun(s, {
      ...r.deps,
      progress: { ...silentProgress, cellDone: () => run.interrupt() },
    });
    const first = await r.drive(run.start());
    expect(first.result.status).toBe('interrupted');
    expect(first.result.decode).toHaveLength(1);
    const again = await r.drive(new BenchRun({ ...s, resume: first.dir, runId: undefined }, r.deps).start());
    expect(again.result.status).toBe('complete');
    expect(again.result.runId).toBe('x');
    expect(again.result.decode.map((c) => c.concurrency)).toEqual([1, 2, 4]);
    expect(again.result.decode[0]).toEqual(first.result.decode[0]);
  });

  it('a program that resumes gets the stored settings as the CLI does (one rule, src/config/stored.ts)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-run-'));
    const s = settings(out, { runId: 'y', contexts: [1024], concurrency: [1, 2], temperature: 0.5 });
    const r = rig();
    const run: BenchRun = new BenchRun(s, {
      ...r.deps,
      progress: { ...silentProgress, cellDone: () => run.interrupt() },
    });
    const first = await r.drive(run.start());
    expect(first.result.decode).toHaveLength(1);
    const bodies: Array<Record<string, unknown>> = [];
    const inner = r.deps.stream!;
    const stream: StreamFn = (o) => {
      bodies.push(o.body);
      return inner(o);
    };
    // No server given: the stored one; another output cap and temperature: the stored ones win.
    const again = await r.drive(
      new BenchRun(
        { ...s, baseUrl: undefined, runId: undefined, maxOutput: 999, temperature: 0.1, resume: first.dir },
        { ...r.deps, stream },
      ).start(),
    );
    expect(again.result.status).toBe('complete');
    expect(again.result.config).toEqual(first.result.config);
    const decode = bodies.filter((b) => b.max_tokens !== 1);
    expect(decode.length).toBeGreaterThan(0);
    for (const b of decode) expect([b.max_tokens, b.temperature]).toEqual([50, 0.5]);
  });

  it('sends every request with the chosen HTTP client (plain data, as worker threads get it) and stores it', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-run-'));
    const r = rig();
    const inner = r.deps.stream!;
    const clients = new Set<string | undefined>();
    const stream: StreamFn = (o) => {
      clients.add(o.httpClient);
      return inner(o);
    };
    const s = settings(out, { contexts: [1024], concurrency: [2], httpClient: 'undici' });
    const o = await r.drive(new BenchRun(s, { ...r.deps, stream }).start());
    expect(o.result.status).toBe('complete');
    expect([...clients]).toEqual(['undici']);
    expect(o.result.config.httpClient).toBe('undici');
  });
});
