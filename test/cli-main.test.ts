import { describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from './helpers/cli.js';

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

  it('the bin and main() give the same exit code and one-line error', async () => {
    const args = ['report', '/nonexistent/result.json'];
    const [inProcess, bin] = await Promise.all([runCliInProcess(args), runCli(args)]);
    expect(inProcess.stderr).toMatch(/^error \[\w+\]: .*\n$/);
    expect(inProcess.code).toBeGreaterThan(1);
    expect(inProcess.stdout).toBe('');
    expect(bin).toEqual(inProcess);
  });
});
