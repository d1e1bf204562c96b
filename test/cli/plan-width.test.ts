import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { runCliInProcess } from '../helpers/cli.js';

// plan in an 80-column terminal printed its summary and the twin recipe's note as lines of 100 to 400
// characters; piped, its header was still 150 columns: piped output fits 80 columns as a terminal's does.
async function planOnTty(args: string[], columns: number): Promise<string> {
  let out = '';
  const stdout = { write: (t: string) => (out += t), isTTY: true, columns };
  const code = await main(args, { stdout, stderr: { write: () => true }, env: { NO_COLOR: '1' } });
  expect(code).toBe(0);
  return out;
}

describe('plan on a terminal and piped', () => {
  it('wraps its prose to the width; table rows and the commands to paste stay whole', async () => {
    for (const args of [
      ['plan', '--max-model-len', '128K', '--kv-capacity', '500K'],
      ['plan', '--max-model-len', '32K', '--for-twin'],
    ]) {
      const tty = await planOnTty(args, 80);
      const long = tty.split('\n').filter((l) => l.length > 80);
      // Only the indented commands of the twin recipe, whole so that they paste as printed.
      expect(
        long.every((l) => /^ {2}\S+ .*--out twin-run-\d/.test(l) || l.startsWith('  BASE_URL=')),
        long.join('\n'),
      ).toBe(true);
      const piped = await runCliInProcess(args);
      expect(piped.stdout).toBe(tty);
      // The words are the ones a wide terminal prints on single lines.
      expect((await planOnTty(args, 400)).replace(/\s+/g, ' ')).toBe(tty.replace(/\s+/g, ' '));
    }
    const summary = (await planOnTty(['plan', '--max-model-len', '128K', '--kv-capacity', '500K'], 80)).split(
      '\n',
    );
    // 5 contexts x 8 levels, 20 over 500K tokens of KV (the table above it): one summary over two lines.
    expect(summary.at(-3)).toMatch(/^40 cells: 20 to measure, 20 skipped as Over capacity; estimated /);
    expect(summary.at(-2)).toMatch(/^ {2}\S.*cold prefill\)$/);
  });
});
