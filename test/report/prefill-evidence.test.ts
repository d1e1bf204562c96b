import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/index.js';
import { syntheticResult } from './synthetic.js';

// A prefill figure's evidence (cached tokens left out of the rate, a full-window prompt
// measured again shorter) shows in every report.
describe('prefill evidence in reports', () => {
  it('cached tokens and a shortened full-window prompt are named in md, txt and html', () => {
    const r = syntheticResult();
    const [first] = r.prefill;
    r.prefill = [
      { ...first!, cachedTokens: 12 },
      {
        ...first!,
        contextTokens: 16_128,
        decodeContext: false,
        shortened: { fromTarget: 16_128, toTarget: 15_792, rejectedPromptTokens: 16_400, reason: 'too long' },
      },
    ];
    for (const fmt of ['md', 'html'] as const) {
      const out = renderReport(r, fmt);
      expect(out, fmt).toContain('12 cached tokens not counted');
      expect(out, fmt).toContain('refused as too long, remeasured at 15,792 tokens');
    }
    const txt = renderReport(r, 'txt').split('\n');
    expect(txt.find((l) => l.includes('12 cached'))).toBeDefined();
    expect(txt.find((l) => l.includes('retried at 15,792'))).toBeDefined();
    for (const l of txt) expect(l.length, l).toBeLessThanOrEqual(80);
  });
});
