import type { DecodeCell, Quantiles, ServerSample } from '../../results/schema.js';
import type { Anomaly } from '../anomalies.js';
import {
  contextLabel,
  DASH,
  fmt1,
  fmt2,
  fmtInt,
  fmtMs,
  fmtPct,
  fmtS,
  fmtTokenMs,
  fmtTokS,
} from '../../format/index.js';
import { errorTotal, repeatsText } from '../model.js';
import { esc } from './escape.js';
import { cellId } from './heatmap.js';
import { n1 } from './svg.js';
import { cellKey, STATUS_CLASS } from '../../cell-rules.js';

// Per-cell detail panels, rendered up front (hidden) so the page needs no client-side templating.

function kv(rows: Array<[string, string]>): string {
  return `<dl class="kv">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>`;
}

function quantRow(name: string, q: Quantiles | undefined, f: (v: number | null) => string): string {
  if (!q) return '';
  return `<tr><th scope="row">${esc(name)}</th><td>${esc(f(q.p50))}</td><td>${esc(f(q.p90))}</td><td>${esc(f(q.p99))}</td></tr>`;
}

const SAMPLE_SERIES: Array<{ key: keyof ServerSample; name: string; cls: string; unit?: 'ratio' }> = [
  { key: 'running', name: 'running', cls: 's1' },
  { key: 'waiting', name: 'waiting', cls: 's2' },
  { key: 'kvUsage', name: 'KV usage', cls: 's3', unit: 'ratio' },
];

const MAX_POINTS = 120;

/** Keeps a long sample series small: one point per bucket, the bucket's maximum (peaks matter here). */
export function downsample(points: Array<[number, number]>, maxPoints: number): Array<[number, number]> {
  if (points.length <= maxPoints) return points;
  const out: Array<[number, number]> = [];
  const size = points.length / maxPoints;
  for (let b = 0; b < maxPoints; b++) {
    const bucket = points.slice(Math.floor(b * size), Math.floor((b + 1) * size));
    if (!bucket.length) continue;
    out.push([bucket[0]![0], Math.max(...bucket.map((p) => p[1]))]);
  }
  return out;
}

/** Server metrics sampled during the window as small step lines (running, waiting, KV usage). */
export function samplesSvg(samples: ServerSample[]): string {
  if (samples.length < 2) return '';
  const W = 420;
  const H = 110;
  const pad = 6;
  const t0 = samples[0]!.tMs;
  const t1 = samples[samples.length - 1]!.tMs;
  const x = (t: number) => pad + ((t - t0) / (t1 - t0 || 1)) * (W - 2 * pad);
  const counts = samples.flatMap((s) => [s.running ?? 0, s.waiting ?? 0]);
  const maxCount = Math.max(1, ...counts);
  const paths = SAMPLE_SERIES.filter((s) => samples.some((x) => typeof x[s.key] === 'number'))
    .map((s) => {
      const max = s.unit === 'ratio' ? 1 : maxCount;
      const y = (v: number) => H - pad - (v / max) * (H - 2 * pad);
      const pts = downsample(
        samples.filter((p) => typeof p[s.key] === 'number').map((p) => [p.tMs, p[s.key] as number]),
        MAX_POINTS,
      );
      const d = pts.map(([t, v], i) => `${i ? 'L' : 'M'}${n1(x(t))},${n1(y(v))}`).join('');
      return `<path class="${s.cls}" d="${d}" fill="none" stroke-width="1.8"/>`;
    })
    .join('');
  const legend = SAMPLE_SERIES.filter((s) => samples.some((x) => typeof x[s.key] === 'number'))
    .map((s) => {
      const vals = samples.map((p) => p[s.key]).filter((v): v is number => typeof v === 'number');
      const peak = Math.max(...vals);
      return `<li><i class="${s.cls}"></i>${esc(s.name)} (max ${esc(s.unit === 'ratio' ? fmtPct(peak) : fmtInt(peak))})</li>`;
    })
    .join('');
  return `<figure class="samples"><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="Server samples during the window">
<rect x="0" y="0" width="${W}" height="${H}" class="frame"/>${paths}</svg>
<figcaption><ul>${legend}</ul><span class="muted">${samples.length} samples over ${esc(fmtS((t1 - t0) / 1000))}; counts share one scale, KV usage is 0–100%</span></figcaption></figure>`;
}

export function cellDetailHtml(c: DecodeCell, flags: Anomaly[], gpus?: number): string {
  const title = `${contextLabel(c.contextTokens)} context × ${c.concurrency} request${c.concurrency === 1 ? '' : 's'} at once`;
  const extra = detailExtras(c);
  const clientQueue = clientQueueText(c);
  const samples = c.serverSamples?.length ? samplesSvg(c.serverSamples) : '';
  const flagList = flags.length
    ? `<ul class="flags">${flags.map((f) => `<li class="sev-${f.severity}">${esc(f.text)}</li>`).join('')}</ul>`
    : '';
  return `<section class="cell-detail" id="detail-${cellId(c)}" data-detail="${cellKey(c.contextTokens, c.concurrency)}" hidden>
<header><h3>${esc(title)}</h3><span class="pill ${STATUS_CLASS[c.status]}">${esc(c.status)}</span><button type="button" class="close" aria-label="Close details">×</button></header>
${c.error ? `<p class="err-msg">${esc(c.error)}</p>` : ''}${flagList}
<div class="detail-grid">
<div><h4>Figures</h4>${kv(detailFigures(c, gpus))}${extra.length ? kv(extra) : ''}</div>
<div><h4>Percentiles</h4>${quantTable(c)}<h4>Errors by kind</h4>${errorsTable(c)}</div>
<div><h4>Queue evidence</h4><p>${esc(queueText(c))}</p>${clientQueue ? `<p class="muted" style="margin-top:6px">${esc(clientQueue)}</p>` : ''}<h4>Cache-hit evidence</h4><p>${esc(cacheText(c))}</p>${
    samples ? `<h4>Server samples</h4>${samples}` : ''
  }</div>
</div></section>`;
}

function detailFigures(c: DecodeCell, gpus: number | undefined): Array<[string, string]> {
  return [
    ['Status', c.status],
    ['Total tok/s', fmtTokS(c.totalTokensPerS)],
    ...(gpus && c.totalTokensPerS !== null
      ? [['Total tok/s per GPU', fmtTokS(c.totalTokensPerS / gpus)] as [string, string]]
      : []),
    ['Per request tok/s', fmtTokS(c.perRequestTokensPerS)],
    ['TTFT (median)', fmtMs(c.ttftMs)],
    ['Time between tokens', fmtTokenMs(c.tbtMs)],
    ['Average active requests', fmt1(c.avgActive)],
    ['Completed requests', fmtInt(c.completed)],
    ['Output tokens', fmtInt(c.outputTokens)],
    ['Measured for', fmtS(c.measuredS)],
  ];
}

const known = (v: number | null | undefined): v is number => v !== undefined && v !== null;

// Everything beyond the seed figures that this cell recorded, and how far to trust it.
function detailExtras(c: DecodeCell): Array<[string, string]> {
  const extra: Array<[string, string]> = [];
  const add = (label: string, value: string | false | undefined) => {
    if (value) extra.push([label, value]);
  };
  add('Repeats', repeatsText(c));
  add('Requests sent', c.requestsSent !== undefined && fmtInt(c.requestsSent));
  add('Prompt tokens (median)', c.promptTokens !== undefined && fmtInt(c.promptTokens));
  add('Prompt cache hit ratio', known(c.cacheHitRatio) && fmtPct(c.cacheHitRatio, 1));
  add('Speculative acceptance length', known(c.specAcceptanceLength) && fmt2(c.specAcceptanceLength));
  add('Max running (server)', known(c.maxRunning) && fmtInt(c.maxRunning));
  add('Max waiting (server)', known(c.maxWaiting) && fmtInt(c.maxWaiting));
  add('Average power', known(c.avgPowerW) && `${fmtInt(c.avgPowerW)} W`);
  add('Energy per token', known(c.joulesPerToken) && `${fmt2(c.joulesPerToken)} J`);
  add('Tokens per second per watt', known(c.tokensPerSPerW) && fmt2(c.tokensPerSPerW));
  add('Aborted at window close', c.abortedAtClose !== undefined && fmtInt(c.abortedAtClose));
  add('Token split per chunk', c.chunkAttribution && tokenSplitText(c));
  add('Client self-check', c.client && clientText(c.client));
  add('Stream arrival', c.streamBatching && arrivalText(c.streamBatching));
  add('Started', c.startedAt);
  return extra;
}

function tokenSplitText(c: DecodeCell): string {
  if (c.chunkAttribution === 'exact') return 'exact';
  return c.windowTokenErrorBound
    ? `estimated; the window count may be off by up to ${fmtInt(c.windowTokenErrorBound)} tokens`
    : 'estimated (no request crossed a window edge with a guessed split)';
}

function clientText(k: NonNullable<DecodeCell['client']>): string {
  const busiest =
    k.busiestLoopPct !== undefined
      ? `, busiest event loop ${fmtInt(k.busiestLoopPct)}% (${k.busiestLoop ?? '?'})`
      : '';
  const load = `loop delay p99 ${fmt1(k.loopDelayP99Ms)} ms, CPU ${fmtInt(k.cpuPctPerThread)}%${busiest}`;
  return k.clientBound ? `the client was the bottleneck (${k.reason ?? load})` : `fine: ${load}`;
}

function arrivalText(b: NonNullable<DecodeCell['streamBatching']>): string {
  const seen =
    `${fmt1(b.eventsPerRead)} token events per read, ${fmtMs(b.heldMs)} between reads, ` +
    `first token with later ones in ${fmtPct(b.firstHeldShare)} of requests`;
  return b.batched ? `held back between client and server (${seen})` : `as the server sent it (${seen})`;
}

function quantTable(c: DecodeCell): string {
  if (!c.ttft && !c.chunkGapMs && !c.perRequestTokensPerSQ)
    return `<p class="muted">No percentiles recorded for this cell.</p>`;
  return `<table class="quant"><thead><tr><th></th><th>p50</th><th>p90</th><th>p99</th></tr></thead><tbody>${
    quantRow('TTFT', c.ttft, fmtMs) +
    quantRow('Gap between chunks', c.chunkGapMs, fmtTokenMs) +
    quantRow('Per request tok/s', c.perRequestTokensPerSQ, fmtTokS)
  }</tbody></table>`;
}

function errorsTable(c: DecodeCell): string {
  if (!errorTotal(c.errors))
    return `<p class="muted">${c.errors ? 'No request errors.' : 'Errors were not recorded.'}</p>`;
  return `<table class="errs"><tbody>${Object.entries(c.errors ?? {})
    .filter(([, n]) => n)
    .map(([k, n]) => `<tr><th scope="row"><code>${esc(k)}</code></th><td>${esc(fmtInt(n ?? 0))}</td></tr>`)
    .join('')}</tbody></table>${serverWordsTable(c)}`;
}

// The server's own words for the failed requests, message by message (the error bodies and events it sent).
function serverWordsTable(c: DecodeCell): string {
  const said = c.serverErrors ?? [];
  if (!said.length) return '';
  return `<h4>The server said</h4><table class="errs"><tbody>${said
    .map(
      (s) =>
        `<tr><th scope="row">${esc(s.message)}</th><td>${esc(fmtInt(s.count))} × <code>${esc(s.kind)}</code>${s.status ? ` ${esc(String(s.status))}` : ''}</td></tr>`,
    )
    .join('')}</tbody></table>`;
}

function cacheText(c: DecodeCell): string {
  if (c.cacheHitRatio === undefined || c.cacheHitRatio === null)
    return 'The target reported no cached-token counts for this cell.';
  return (
    `${fmtPct(c.cacheHitRatio, 1)} of prompt tokens were served from the prefix cache, ` +
    (c.cacheHitRatio >= 0.9
      ? 'so TTFT here is mostly queueing and decode scheduling, not prefill.'
      : 'so part of every TTFT is prefill work: the warm-up did not keep all slots cached.')
  );
}

function queueText(c: DecodeCell): string {
  if (c.queueEvidence) return c.queueEvidence;
  if (c.status === 'Requests queued')
    return `Average active requests ${fmt1(c.avgActive)} of ${c.concurrency}: the server did not run them all at once.`;
  return c.status === 'Valid' ? `Average active requests ${fmt1(c.avgActive)} of ${c.concurrency}.` : DASH;
}

function clientQueueText(c: DecodeCell): string {
  return [
    c.rampTimedOut ? 'The window opened on the ramp timeout: not every request had its first token.' : '',
    known(c.avgPending)
      ? `On average ${fmt1(c.avgPending)} requests were waiting for a first token during the window.`
      : '',
    known(c.maxFirstTokenWaitMs) ? `Longest wait for a first token: ${fmtMs(c.maxFirstTokenWaitMs)}.` : '',
    typeof c.maxChunkGapMs === 'number'
      ? `Longest gap between chunks: ${fmtMs(c.maxChunkGapMs)}; ${c.stalls ? `${c.stalls} stalled gap${c.stalls > 1 ? 's' : ''} (over 1 s and 10× the median gap), ${fmtMs(c.stalledMs)} of the window with a stream stalled` : 'no stall'}.`
      : '',
  ]
    .filter(Boolean)
    .join(' ');
}
