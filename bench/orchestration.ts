// bench:orchestration — wall time of the demo matrix (`llm-inference-bench demo`: contexts 1K..8K, concurrency
// 1..16, the demo sim profile, in its own process) against what a run cannot avoid: the sum of its measurement
// windows and of its cold prefills. Every phase the runner announces is timed, so the overhead is attributed
// (probe, warm-up, ramp, settle, ...). Target: overhead <= 10%.
// Usage: npm run bench:orchestration [-- --duration=3]
import { demoSettings } from '../src/cli/demo.js';
import { BenchRun } from '../src/bench/run.js';
import type { RunInput } from '../src/bench/settings.js';
import type { ProgressSink } from '../src/progress/sink.js';
import { OUT_DIR, boostPriority, table, writeOut } from './lib/out.js';
import { startSimChild } from './lib/sim-child.js';
import { benchArgs } from './lib/args.js';

const DURATION_S = benchArgs(
  {
    name: 'bench:orchestration',
    about: "The demo matrix's wall time against the sum of its windows and prefills.",
  },
  { duration: { type: 'number', default: 3, help: "each cell's window, seconds" } },
).duration;

const phaseKind = (label: string): string => {
  if (label.startsWith('prefill')) return 'prefill (cold)';
  if (label.startsWith('warm-up')) return 'warm-up';
  if (label.startsWith('decode')) return 'decode (ramp + window)';
  if (label.startsWith('settle')) return 'settle';
  return label;
};

async function main() {
  const priority = boostPriority();
  const sim = await startSimChild({ profile: 'demo' });
  const phases = new Map<string, number>();
  let current = 'probe + plan';
  let since = performance.now();
  const switchTo = (label: string) => {
    const t = performance.now();
    phases.set(current, (phases.get(current) ?? 0) + (t - since));
    current = label;
    since = t;
  };
  const progress: ProgressSink = {
    start: () => switchTo('start'),
    phase: (p) => switchTo(phaseKind(p)),
    prefillDone: () => {},
    cellDone: () => {},
    warn: () => {},
    finish: () => {},
  };
  const t0 = performance.now();
  let result;
  try {
    const settings: RunInput = {
      ...demoSettings(sim.baseUrl, 16384, DURATION_S, OUT_DIR),
      runId: `orchestration-${Date.now()}`,
      reports: true,
    };
    const run = new BenchRun(settings, { progress });
    result = (await run.start()).result;
    switchTo('reports');
  } finally {
    await sim.stop();
  }
  const wallMs = performance.now() - t0;
  const windowsMs = result.decode.reduce(
    (a, c) =>
      a +
      (c.windowOpenMs !== undefined && c.windowCloseMs !== undefined ? c.windowCloseMs - c.windowOpenMs : 0),
    0,
  );
  const prefillMs = result.prefill.reduce((a, p) => a + p.repeats.reduce((b, r) => b + r.ttftMs, 0), 0);
  const necessaryMs = windowsMs + prefillMs;
  // Every distinct slot prompt must be prefilled once too (the warm-up does it): N prompts of C tokens at the
  // server's measured cold prefill rate for C, N the largest concurrency run at C.
  let slotPrefillMs = 0;
  for (const ctx of new Set(
    result.decode.filter((c) => c.windowOpenMs !== undefined).map((c) => c.contextTokens),
  )) {
    const n = Math.max(
      ...result.decode
        .filter((c) => c.contextTokens === ctx && c.windowOpenMs !== undefined)
        .map((c) => c.concurrency),
    );
    const rate = result.prefill.find((p) => p.contextTokens === ctx)?.tokensPerS;
    if (rate) slotPrefillMs += (n * ctx * 1000) / rate;
  }
  const decodeMs = phases.get('decode (ramp + window)') ?? 0;
  const rows: Array<Record<string, string | number>> = [
    { part: 'measurement windows', s: windowsMs / 1000, share: '' },
    { part: 'cold prefills (sum of TTFTs)', s: prefillMs / 1000, share: '' },
    { part: 'necessary (windows + prefills)', s: necessaryMs / 1000, share: '' },
    {
      part: 'with each slot prompt prefilled once',
      s: (necessaryMs + slotPrefillMs) / 1000,
      share: `overhead ${((100 * (wallMs - necessaryMs - slotPrefillMs)) / (necessaryMs + slotPrefillMs)).toFixed(1)}%`,
    },
    { part: 'wall', s: wallMs / 1000, share: '' },
    {
      part: 'overhead (wall / necessary - 1)',
      s: (wallMs - necessaryMs) / 1000,
      share: `${((100 * (wallMs - necessaryMs)) / necessaryMs).toFixed(1)}%`,
    },
  ];
  const attributed: Array<[string, number]> = [...phases].filter(([k]) => k !== 'decode (ramp + window)');
  attributed.push(['ramp (decode phase - window)', decodeMs - windowsMs]);
  attributed.sort((a, b) => b[1] - a[1]);
  for (const [k, ms] of attributed)
    rows.push({ part: `  where: ${k}`, s: ms / 1000, share: `${((100 * ms) / wallMs).toFixed(1)}% of wall` });
  process.stdout.write(table(rows));
  const cells = result.decode.map((c) => `${c.contextTokens}x${c.concurrency} ${c.status}`);
  const path = writeOut('orchestration', {
    priority,
    duration: DURATION_S,
    wallS: wallMs / 1000,
    windowsS: windowsMs / 1000,
    prefillS: prefillMs / 1000,
    slotPrefillS: slotPrefillMs / 1000,
    overheadPct: (100 * (wallMs - necessaryMs)) / necessaryMs,
    phasesS: Object.fromEntries([...phases].map(([k, v]) => [k, v / 1000])),
    cells,
    rows,
  });
  process.stdout.write(
    `\n${cells.length} cells (${cells.filter((c) => c.endsWith('Over capacity')).length} Over capacity, not run); JSON: ${path}\n`,
  );
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
