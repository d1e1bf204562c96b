import { describe, expect, it } from 'vitest';
import { runCliInProcess, unwrapped } from '../helpers/cli.js';

// plan's last line gives the estimate and its parts; a reviewer read "estimated 2 min (2 min decode, 25 s cold
// prefill)", parts that do not add up. Here the printed parts must sum to the printed total, which must be the
// --json estimate rounded.
describe('plan estimate line', () => {
  const offline = ['plan', '--max-model-len', '1M', '--kv-capacity', '2500000'];

  async function estimate(extra: string[]) {
    // A summary over 80 columns wraps, continuing two spaces in: read it as one line.
    const text = unwrapped((await runCliInProcess([...offline, ...extra])).stdout);
    const json = JSON.parse((await runCliInProcess([...offline, ...extra, '--json'])).stdout) as {
      estimate: { totalS: number; prefillS: number };
    };
    const m =
      /estimated (\S+) (s|min|h) \((?:under )?(\S+) \2 decode, (under )?(\S+) \2 cold prefill\)$/m.exec(text);
    expect(m, text).not.toBeNull();
    const [, total, unit, decode, under, prefill] = m!;
    return { total: Number(total), unit, decode: Number(decode), prefill: Number(prefill), under, json };
  }

  it('a short plan prints seconds, and the parts add up to the total', async () => {
    const e = await estimate(['--contexts', '8K,32K', '--concurrency', '1,8', '--duration', '10']);
    expect(e.unit).toBe('s');
    expect(e.decode + e.prefill).toBe(e.total);
    expect(e.total).toBe(Math.round(e.json.estimate.totalS));
    expect(e.prefill).toBe(Math.round(e.json.estimate.prefillS));
  });

  it('a long plan prints minutes, the parts still adding up', async () => {
    const e = await estimate([]);
    expect(e.unit).toBe('min');
    expect(e.decode + e.prefill).toBe(e.total);
    expect(e.total).toBe(Math.round(e.json.estimate.totalS / 60));
  });
});
