import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';

// plan refuses what run refuses: every requested context too long for the max model length (docs/method.md
// "Errors"), one coded line, exit 6; some too long, the table marks them long.
describe('plan and contexts too long', () => {
  it('every requested context too long: one line, with what fits', async () => {
    const r = await runCliInProcess([
      'plan',
      '--max-model-len',
      '1M',
      '--contexts',
      '2M',
      '--concurrency',
      '1',
    ]);
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    // 1,048,576 - 4,096 output tokens = 1,044,480 = 1020K
    expect(r.stderr).toBe(
      "error [CONTEXT_TOO_LONG]: --contexts 2M exceeds the server's max model length 1,048,576 (1M) with 4,096 " +
        'output tokens; the longest it takes is 1,044,480 (1020K). No prompt was sent: give shorter --contexts ' +
        '(or a smaller --max-output).\n',
    );
  });

  it('exactly the max model length is too long once the output is counted', async () => {
    const r = await runCliInProcess([
      'plan',
      '--max-model-len',
      '32K',
      '--contexts',
      '32K',
      '--max-output',
      '100',
    ]);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(
      "--contexts 32K exceeds the server's max model length 32,768 (32K) with 100 output tokens; the longest it takes is 32,668.",
    );
  });

  it('some too long: planned, marked long, with the reason in thousands', async () => {
    const r = await runCliInProcess([
      'plan',
      '--max-model-len',
      '1M',
      '--contexts',
      '8K,2M',
      '--concurrency',
      '1',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as {
      cells: { contextTokens: number; status: string; reason?: string }[];
      estimate: { steps: { kind: string; contextTokens: number; estimateS: number }[] };
    };
    expect(plan.cells.map((c) => `${c.contextTokens} ${c.status}`)).toEqual(['8192 run', '2097152 Too long']);
    expect(plan.cells[1]!.reason).toBe(
      "context 2,097,152 + 4,096 output tokens exceeds the server's max model length 1,048,576",
    );
    // no prefill for it, and its cell costs nothing
    const long = plan.estimate.steps.filter((s) => s.contextTokens === 2_097_152);
    expect(long.map((s) => `${s.kind} ${s.estimateS}`)).toEqual(['cell 0']);
  });
});
