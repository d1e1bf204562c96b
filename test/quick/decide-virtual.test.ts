import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerOf, type Answer } from '../../src/answer/answer.js';
import { decideRun } from '../../src/quick/decide.js';
import { quickAnswerLines } from '../../src/quick/lines.js';
import { sizeQuickPlan, type QuickPlan } from '../../src/quick/size.js';
import { runVirtual, virtualSettings } from '../bench/virtual-run.js';

// quick's plan run on the sim in virtual time: a level where requests queue is judged by count alone, so it must
// hold enough requests to decide at the default service level, and where it cannot (one seat), quick names the
// window that does (docs/quick.md). The tiny profile: 500 tok/s for one user, prefill at 2M tok/s, 32K window.
const TINY_SPEED = { tokensPerS: 500, ttftMs: 5, promptTokens: 1024 };
const TINY = { maxModelLen: 32_768, kvCapacityTokens: 300_000, engine: 'vllm' };

async function runPlan(
  p: Pick<QuickPlan, 'contexts' | 'concurrency' | 'maxOutput' | 'duration'>,
  seats: number,
) {
  const out = mkdtempSync(join(tmpdir(), 'lib-quick-virtual-'));
  const settings = virtualSettings(out, {
    contexts: p.contexts,
    prefillContexts: p.contexts,
    concurrency: p.concurrency,
    maxOutput: p.maxOutput,
    duration: p.duration,
    prefillRepeats: 3,
    settleTimeout: 10,
    settlePause: 1,
  });
  const v = await runVirtual(settings, { sim: { overrides: { maxNumSeqs: seats } }, metrics: {} });
  return answerOf(v.result);
}

const verdictAt = (a: Answer, n: number) => a.contexts[0]!.cells.find((j) => j.cell.concurrency === n)!;

describe('quick: each level can decide', () => {
  it('8 users on 4 seats (queued): enough requests to meet the level by count', async () => {
    const plan = sizeQuickPlan(TINY_SPEED, TINY);
    const a = await runPlan(plan, 4);
    const eight = verdictAt(a, 8);
    expect(eight.cell.status).toBe('Requests queued');
    // 4 seats end about 12 answers each a window: 48 requests, past the 35 the count needs (32 were too few)
    expect(eight.share!.judged).toBeGreaterThanOrEqual(40);
    expect(eight.verdict).toBe('meets');
    expect(a.contexts[0]!.undecided).toEqual([]);
  });

  it('one seat: the levels left too close to call decide when run as quick says', async () => {
    const plan = sizeQuickPlan(TINY_SPEED, TINY);
    const first = await runPlan(plan, 1);
    const open = first.contexts[0]!.undecided.map((j) => j.cell.concurrency);
    expect(open).toEqual([2, 4]); // 1 seat ends 12 answers a window, whatever the users
    const decide = decideRun(first, plan)!;
    expect(decide).toMatchObject({ concurrency: [2, 4], maxOutput: plan.maxOutput });
    expect(decide.duration).toBeGreaterThan(plan.duration * 3);
    const lines = quickAnswerLines(first, { report: 'r.html', result: 'r' }, [], plan);
    // quick's own flags, whole on one line, to add to the command that printed them
    const flags = `--concurrency 2,4 --duration ${decide.duration} --max-output ${plan.maxOutput}`;
    expect(lines.join('\n')).toContain(
      `  Change: to decide 2 and 4 users, measure them longer:\n    \`${flags}\`.\n`,
    );
    // what quick runs for those flags: the same levels, answers and window
    const again = sizeQuickPlan(TINY_SPEED, { ...TINY, ...decide });
    expect(again).toMatchObject({
      concurrency: [2, 4],
      maxOutput: decide.maxOutput,
      duration: decide.duration,
    });
    const second = await runPlan(again, 1);
    for (const n of [2, 4]) expect(verdictAt(second, n).verdict, `${n} users`).toBe('meets');
  });
});
