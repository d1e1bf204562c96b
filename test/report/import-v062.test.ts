import { describe, expect, it } from 'vitest';
import { BenchError } from '../../src/errors.js';
import { contextLabel } from '../../src/format/index.js';
import { importV062Text, parseFigure } from '../../src/results/import-v062.js';
import { RunResult } from '../../src/results/schema.js';
import { SEEDS, seedResult, seedRows, seedText } from './seeds.js';

describe('import of v0.6.2 text reports', () => {
  it('parses figures as printed', () => {
    expect(parseFigure('9,835.0')).toBe(9835);
    expect(parseFigure('10.7K')).toBe(10700);
    expect(parseFigure('833 ms')).toBe(833);
    expect(parseFigure('9.2 ms')).toBe(9.2);
    expect(parseFigure('30.0 s')).toBe(30);
    expect(parseFigure('—')).toBeNull();
    expect(() => parseFigure('fast')).toThrow(BenchError);
  });

  for (const seed of SEEDS) {
    describe(seed.name, () => {
      const r = seedResult(seed.id);
      it('validates against the result schema and is marked imported', () => {
        expect(RunResult.safeParse(r).success).toBe(true);
        expect(r.status).toBe('imported');
        expect(r.tool).toEqual({ name: 'llm-inference-bench', version: '0.6.2' });
      });
      it('carries every row of the seed (checked against the parsed seed rows)', () => {
        const rows = seedRows(seed.id);
        const pre = rows.filter((x) => x.phase === 'prefill');
        const dec = rows.filter((x) => x.phase === 'decode');
        expect(r.prefill).toHaveLength(pre.length);
        expect(r.decode).toHaveLength(dec.length);
        for (const row of pre) {
          const p = r.prefill.find((x) => x.contextTokens === row.contextTokens)!;
          expect(p, row.context).toBeDefined();
          expect(contextLabel(p.contextTokens)).toBe(row.context);
          expect([p.status, p.tokensPerS, p.ttftMs, p.completed]).toEqual([
            row.status,
            row.totalTokPerS,
            row.ttftMs,
            row.completed,
          ]);
        }
        for (const row of dec) {
          const c = r.decode.find(
            (x) => x.contextTokens === row.contextTokens && x.concurrency === row.concurrency,
          )!;
          expect(c, `${row.context} × ${row.concurrency}`).toBeDefined();
          expect([
            c.status,
            c.totalTokensPerS,
            c.perRequestTokensPerS,
            c.ttftMs,
            c.tbtMs,
            c.avgActive,
            c.completed,
            c.outputTokens,
            c.measuredS,
          ]).toEqual([
            row.status,
            row.totalTokPerS,
            row.perRequestTokPerS,
            row.ttftMs,
            row.tbtMs,
            row.avgActive,
            row.completed,
            row.outputTokens,
            row.measuredS,
          ]);
        }
      });
      it('reads the metadata blocks, title and launch command', () => {
        expect(r.title).toBe(seedText(seed.id).split('\n')[1]);
        expect(r.engine.name).toBe('vllm');
        expect(r.engine.quantization).toBe('FP8');
        expect(r.engine.commit).toMatch(/^[0-9a-f]{12}$/);
        expect(r.hardware.gpuCount).toBe(seed.id.startsWith('000') ? 8 : 4);
        expect(r.hardware.gpuMemoryGb).toBe(seed.id.startsWith('000') ? 96 : 141);
        expect(r.config).toMatchObject({
          duration: 30,
          maxOutput: 4096,
          concurrency: [1, 2, 4, 8, 16, 32, 64, 128],
        });
        expect(r.target.maxModelLen).toBe(1048576);
        expect(r.launchCommand).toMatch(/^env VLLM_USE_V2_MODEL_RUNNER=1 /);
        expect(r.launchCommand).toContain('--api-key <redacted>');
        expect(r.launchCommand).not.toMatch(/Prefill$/);
        expect(r.prefill.at(-1)!.decodeContext).toBe(false);
      });
    });
  }

  it('H200: the launch command glued to "Prefill" ends at the closing quote; no version line', () => {
    const r = seedResult(SEEDS[1].id);
    expect(r.launchCommand!.endsWith(`"disable_eagle_block_drop":true}'`)).toBe(true);
    expect(r.engine.version).toBeUndefined();
    expect(r.target.model).toBe('glm-5.3-flash-dflash2');
  });

  it('is deterministic (the run id is a hash of the text)', () => {
    expect(seedResult(SEEDS[0].id).runId).toBe(seedResult(SEEDS[0].id).runId);
    expect(seedResult(SEEDS[0].id).runId).not.toBe(seedResult(SEEDS[1].id).runId);
  });

  it('rejects other text with RESULT_INVALID', () => {
    const err = (() => {
      try {
        importV062Text('hello\nworld');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(BenchError);
    expect((err as BenchError).code).toBe('RESULT_INVALID');
    const broken = seedText(SEEDS[0].id).replace(
      '| Sustained decode | 8K | 1 | Valid |',
      '| Sustained decode | 8K | 1 | Great |',
    );
    expect(() => importV062Text(broken)).toThrow(/unknown status "Great"/);
  });

  it('accepts CRLF line ends', () => {
    const r = importV062Text(seedText(SEEDS[0].id).replace(/\n/g, '\r\n'));
    expect(r.decode).toHaveLength(64);
  });
});
