import { describe, expect, it } from 'vitest';
import { importV062Text } from '../../src/results/import-v062.js';
import { matrixFigures } from '../../src/results/import-crosscheck.js';
import { SEEDS, seedText } from './seeds.js';

const h200 = () => seedText(SEEDS[1].id);
const lineOf = (text: string, start: string) => text.split('\n').findIndex((l) => l.startsWith(start)) + 1;
const damaged = (warnings: string[]) => warnings.slice(1); // [0] is the standard import note

// The matrix, the table and the metadata are checked against each other.
describe('import notices damage', () => {
  it('reads every figure of the matrices (64 decode cells, 9 prefill points)', () => {
    const figs = matrixFigures(h200().split('\n'));
    expect(figs.filter((f) => f.phase === 'Sustained decode')).toHaveLength(64);
    expect(figs.filter((f) => f.phase === 'Prefill')).toHaveLength(9);
    expect(figs.find((f) => f.contextTokens === 65536 && f.phase === 'Prefill')).toMatchObject({
      tokensPerS: 4764,
      ttftMs: 13540,
    });
  });

  it('an intact report imports without warnings beyond the import note', () => {
    expect(damaged(importV062Text(h200()).warnings)).toEqual([]);
  });

  it('a deleted decode row is rebuilt from the decode matrix, naming its line', () => {
    const text = h200();
    const row = '| Sustained decode | 8K | 4 | Valid |';
    const cut = text
      .split('\n')
      .filter((l) => !l.startsWith(row))
      .join('\n');
    const r = importV062Text(cut);
    const c = r.decode.find((x) => x.contextTokens === 8192 && x.concurrency === 4)!;
    expect([c.status, c.totalTokensPerS, c.ttftMs]).toEqual(['Valid', 511.7, 176]);
    const matrixLine = lineOf(cut, '| 8K |');
    expect(damaged(r.warnings)).toEqual([
      `line ${matrixLine} (8K × 4): All measurements has no row for it; used the matrix (511.7 tok/s, TTFT 176 ms)`,
    ]);
  });

  it('a changed table figure is checked against the matrix and the row itself; what agrees is used', () => {
    const text = h200().replace(
      '| Sustained decode | 8K | 1 | Valid | 175.8 |',
      '| Sustained decode | 8K | 1 | Valid | 275.8 |',
    );
    const r = importV062Text(text);
    expect(r.decode.find((x) => x.contextTokens === 8192 && x.concurrency === 1)!.totalTokensPerS).toBe(
      175.8,
    );
    const w = damaged(r.warnings);
    expect(w).toHaveLength(1);
    expect(w[0]).toBe(
      `line ${lineOf(text, '| Sustained decode | 8K | 1 |')} (8K × 1): total tok/s 275.8 in All measurements, 175.8 in the matrix (line ${lineOf(text, '| 8K |')}), output tokens / measured time gives 175.7; used 175.8`,
    );
  });

  it('a changed TTFT is reported with both lines', () => {
    const text = h200().replace(
      '| Prefill | 16K | 1 | Valid | 21.2K | — | 764 ms |',
      '| Prefill | 16K | 1 | Valid | 21.2K | — | 964 ms |',
    );
    const w = damaged(importV062Text(text).warnings);
    expect(
      w.some((x) =>
        /^line \d+ \(prefill 16K\): TTFT 964 ms in All measurements, 764 ms in the matrix \(line \d+\)/.test(
          x,
        ),
      ),
    ).toBe(true);
  });

  it('a garbled GPU count is taken from the VRAM breakdown, which keeps its per-GPU figure', () => {
    const text = h200().replace('- GPU count\n- 4\n', '- GPU count\n- 4?x\n');
    const r = importV062Text(text);
    expect(r.hardware.gpuCount).toBe(4);
    expect(r.hardware.gpuMemoryGb).toBe(141);
    expect(damaged(r.warnings)).toEqual([
      `line ${lineOf(text, '- 4?x')} (GPU count): "4?x" is not a number; used 4 from the VRAM breakdown`,
    ]);
  });
});
