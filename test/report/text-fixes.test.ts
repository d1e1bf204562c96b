import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import { wrapCommand } from '../../src/report/wrap-command.js';
import { SEEDS, seedResult } from './seeds.js';

const chars = (s: string) => [...s].length;

// The terminal report (docs/report.md).
describe('terminal report fixes', () => {
  it('includes All measurements with every row, and a legend for the ⚠ marks', () => {
    const r = seedResult(SEEDS[1].id);
    const out = renderReport(r, 'txt', { width: 80 });
    const section = out.slice(out.indexOf('\nAll measurements\n'));
    const rows = section.split('\n').filter((l) => /^ {2}(prefill|decode) /.test(l));
    expect(rows).toHaveLength(r.prefill.length + r.decode.length);
    expect(rows.find((l) => /^ {2}decode +8K +4 /.test(l))).toMatch(/Valid +511\.7 +134\.5 +176 ms/);
    expect(rows.filter((l) => l.includes('⚠')).length).toBeGreaterThan(0);
    expect(section).toContain('⚠ after a figure: it stands out');
  });

  it('wraps the title at 80 columns instead of cutting "×8"', () => {
    const out = renderReport(seedResult(SEEDS[0].id), 'txt', { width: 80 });
    const [first, second] = out.split('\n');
    expect(`${first} ${second!.trim()}`).toContain('RTX PRO 6000 Blackwell Server Edition 96GB ×8');
    expect(out).not.toContain('…');
  });

  it('keeps a flag with its value and breaks long JSON after a comma, never inside a name', () => {
    const cmd = `vllm serve m --api-key <redacted> --speculative-config '{"method":"dflash","model":"incoai/GLM-5.3-Flash-DFlash2","num_speculative_tokens":7}'`;
    const lines = wrapCommand(cmd, 50, '    ');
    for (const l of lines) expect(chars(l)).toBeLessThanOrEqual(50);
    expect(lines.some((l) => l.includes('--api-key <redacted>'))).toBe(true);
    expect(lines.join('')).toContain('"num_speculative_tokens":7');
    expect(lines.find((l) => l.includes('"method"'))).toMatch(/[,/:]$/);
    expect(lines.join('\n')).not.toMatch(/num_specul\n/);
  });

  it('--width 40 gives 40-wide output', () => {
    for (const seed of SEEDS) {
      const out = renderReport(seedResult(seed.id), 'txt', { width: 40 });
      const widest = Math.max(...out.split('\n').map(chars));
      expect(widest).toBeLessThanOrEqual(40);
      expect(widest).toBeGreaterThan(34);
      expect(out).toContain('Not shown at this width:');
    }
  });
});
