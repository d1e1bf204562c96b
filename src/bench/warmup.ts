import type { BenchError } from '../errors.js';
import { fatalCode, fatalError } from './drive/fatal.js';
import type { Sender, Sent } from './drive/sender.js';

// docs/method.md "Cache warm-up": every slot prompt 1..N of the context, max_tokens 1, before each cell.
// Sent all at once: cached slots cost a step, new ones are prefilled now rather than inside the ramp.
// A refusal no retry can fix comes back as data beside what was sent.
export async function warmUp(
  sender: Sender,
  cell: string,
  contextTokens: number,
  concurrency: number,
  signal: AbortSignal,
): Promise<{ sent: Sent[]; fatal?: BenchError }> {
  const sent = await Promise.all(
    Array.from({ length: concurrency }, (_, i) =>
      sender.send({ cell, phase: 'warmup', contextTokens, concurrency, slot: i + 1, maxOutput: 1, signal }),
    ),
  );
  for (const s of sent) {
    const code = fatalCode(s.record);
    if (code) return { sent, fatal: fatalError(code, s.record, `the warm-up of ${cell}`) };
  }
  return { sent };
}

// "warm-up of 8K x4: slot 3 failed (HTTP 503: Service Unavailable)": the kind alone does not say what to look at.
export function warmUpWarnings(label: string, sent: readonly Sent[]): string[] {
  return sent
    .filter((w) => !w.record.ok)
    .map((w) => {
      const e = w.record.error;
      const status = e?.status !== undefined ? `HTTP ${e.status}` : undefined;
      const what = [status ?? e?.kind ?? 'error', e?.message?.slice(0, 120)].filter(Boolean).join(': ');
      return `warm-up of ${label}: slot ${w.spec.slot} failed (${what})`;
    });
}
