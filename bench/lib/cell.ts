// The runner's decode cell (src/bench/decode-cell.ts, the same Sender and closed loop as `run`) against a server,
// with seeded prompt text built locally: what bench:memory and bench:workers drive.
import type { PromptSource } from '../../src/bench/drive/context.js';
import { realClock } from '../../src/clock.js';
import { runDecodeCell, type DecodeCellRun, type DecodeCellSpec } from '../../src/bench/decode-cell.js';
import type { CellMonitor } from '../../src/bench/drive/runner.js';
import { Sender } from '../../src/bench/drive/sender.js';
import { streamRequest } from '../../src/client/stream.js';
import { buildPromptText } from '../../src/prompts/index.js';
import { probeTarget } from '../../src/target/probe.js';

export async function benchSender(baseUrl: string, idPrefix: string): Promise<Sender> {
  const info = await probeTarget({ baseUrl });
  const cache = new Map<string, { text: string; estTokens: number }>();
  const prompts: PromptSource = {
    prompt: async (contextTokens, slot) => {
      const k = `${contextTokens}/${slot}`;
      let p = cache.get(k);
      if (!p) {
        p = {
          text: buildPromptText({ runId: idPrefix, contextTokens, slot, seed: 1 }, 4),
          estTokens: contextTokens,
        };
        cache.set(k, p);
      }
      return p;
    },
  };
  return new Sender(
    { baseUrl, api: 'chat', ignoreEos: true, sampling: {}, idPrefix },
    info,
    prompts,
    streamRequest,
    realClock,
  );
}

export function runCell(
  sender: Sender,
  o: DecodeCellSpec,
  monitor?: CellMonitor, // the runner's client self-check over the window (src/client/self-check.ts)
): Promise<DecodeCellRun> {
  return runDecodeCell(sender, realClock, o, undefined, new AbortController().signal, monitor);
}
