import type { RunResult } from '../../results/schema.js';
import { contextLabel, fmtMs, fmtTokS, fmtTokSChart } from '../../format/index.js';
import { decodeContexts } from '../model.js';
import { SERIES } from './color.js';
import { lineChartSvg } from './line-chart.js';

// Throughput vs interactivity: each line is one context, each point one concurrency level.
// Up and to the right is better; the knee is where adding users stops paying.
export function paretoSvg(r: RunResult): string {
  const gpus = r.hardware.gpuCount && r.hardware.gpuCount > 1 ? r.hardware.gpuCount : undefined;
  const series = decodeContexts(r)
    .map((ctx, i) => ({
      name: `${contextLabel(ctx)} context`,
      color: SERIES[i % SERIES.length]!,
      points: r.decode
        .filter(
          (c) =>
            c.contextTokens === ctx &&
            c.totalTokensPerS !== null &&
            c.totalTokensPerS > 0 &&
            c.perRequestTokensPerS !== null &&
            c.status !== 'Failed',
        )
        .map((c) => ({
          x: c.totalTokensPerS! / (gpus ?? 1),
          y: c.perRequestTokensPerS!,
          order: c.concurrency,
          label: String(c.concurrency),
          hollow: c.status === 'Requests queued',
          tip:
            `${contextLabel(ctx)} × ${c.concurrency}${c.status === 'Requests queued' ? ' (Requests queued)' : ''}: ` +
            `${fmtTokS(c.totalTokensPerS)} tok/s total${gpus ? ` (${fmtTokS(c.totalTokensPerS! / gpus)} per GPU)` : ''}, ` +
            `${fmtTokS(c.perRequestTokensPerS)} tok/s per request, TTFT ${fmtMs(c.ttftMs)}`,
        })),
    }))
    .filter((s) => s.points.length);
  return lineChartSvg({
    series,
    xKind: 'log',
    xLabel: gpus ? `total tok/s per GPU (${gpus} GPUs, log scale) →` : 'total tok/s (log scale) →',
    yLabel: 'per-request tok/s',
    xFormat: fmtTokSChart,
    yFormat: fmtTokSChart,
    ariaLabel: 'Per-request tokens per second against total tokens per second, one line per context',
  });
}
