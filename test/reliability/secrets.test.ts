import { describe, expect, it } from 'vitest';
import { findLeaks, KEY, secretsSweep, type SecretsOutcome } from './lib/secrets.js';

// A distinctive key given by flag, env and file never shows up in any result, log, report, terminal output,
// error message or --debug output; a wrong key and a server echoing the key fail with AUTH_FAILED, no key shown.
describe('secrets never leak', () => {
  let s: SecretsOutcome;
  it('the detector finds the key and a fragment of it', () => {
    expect(findLeaks('x', `a ${KEY} b`, [KEY])).toHaveLength(1);
    expect(findLeaks('x', `Bearer ${KEY.slice(3, 20)}...`, [KEY])).toHaveLength(1);
    expect(findLeaks('x', 'Bearer <redacted>', [KEY])).toHaveLength(0);
  });
  it('sweeps every output surface', { timeout: 300_000 }, async () => {
    s = await secretsSweep();
    expect(s.leaks).toEqual([]);
    expect(s.surfaces.length).toBeGreaterThan(20);
  });
  it('accepts the key from flag, env and file', () => {
    expect(s.accepted).toEqual({ flag: 0, env: 0, file: 0 });
  });
  it('a wrong key and an echoing server fail with AUTH_FAILED, one line', () => {
    for (const r of [s.wrongKey, s.echo]) {
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/^error \[AUTH_FAILED\]: /m);
    }
  });
});
