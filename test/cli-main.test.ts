import { describe, expect, it } from 'vitest';
import { runCliInProcess } from './helpers/cli.js';

describe('cli main', () => {
  it('prints help listing every command', async () => {
    const r = await runCliInProcess(['--help']);
    expect(r.code).toBe(0);
    for (const c of ['run', 'plan', 'probe', 'report', 'compare', 'import', 'sim', 'demo']) {
      expect(r.stdout).toMatch(new RegExp(`^\\s+${c}\\b`, 'm'));
    }
  });

  it('suggests the closest command for a typo, without a stack trace', async () => {
    const r = await runCliInProcess(['runn']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Did you mean run?');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('returns a typed error as its exit code, with one line and no stack trace', async () => {
    const r = await runCliInProcess(['report', '/nonexistent/result.json']);
    expect(r.stderr).toMatch(/^error \[\w+\]: .*\n$/);
    expect(r.code).toBeGreaterThan(1);
    expect(r.stdout).toBe('');
  });
});
