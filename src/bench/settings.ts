import { optionsFor, type Options, type WithoutDefaults } from '../config/options.js';
import type { Hardware } from '../results/schema.js';

// Read by the CLI alone: the config file is merged, the key file read into apiKey, the display chosen.
export const CLI_ONLY_KEYS = ['config', 'apiKeyFile', 'quiet', 'agentTokenFile'] as const;
export type CliOnlyKey = (typeof CLI_ONLY_KEYS)[number];

// Everything a run needs: the run options of the table (src/config/options.ts) under their names and types, so a
// new run option reaches the runner without another declaration; plus what only a program passes.
export type RunSettings = Omit<Options<'run'>, CliOnlyKey> & {
  hardware?: Hardware; // a complete description (source set, e.g. 'sim') instead of discovery and --gpu-*
  reports?: boolean; // write report.html and report.md beside the result (default true)
};

// What a program passes to BenchRun: the table's defaults may be left out (the runner fills them, as the CLI does).
export type RunInput = WithoutDefaults<'run', RunSettings>;

// The names BenchRun takes, and what the names it took before are now (CHANGELOG.md): a program passing an old
// one would run with that option's default in silence.
export const RUN_INPUT_KEYS: readonly string[] = [
  ...optionsFor('run')
    .map((o) => o.key as string)
    .filter((k) => !(CLI_ONLY_KEYS as readonly string[]).includes(k)),
  'hardware',
  'reports',
];
export const RENAMED_RUN_KEYS: Readonly<Record<string, string>> = {
  durationS: 'duration',
  rampTimeoutS: 'rampTimeout',
  settleTimeoutS: 'settleTimeout',
  settlePauseS: 'settlePause',
  metricsIntervalS: 'metricsInterval',
  outDir: 'out',
  resumeDir: 'resume',
  engineFlags: 'engineVersion, engineCommit, backend, build and repository, each a setting of its own',
  sampling: 'temperature, topP and topK, each a setting of its own',
};

// --repeats N repeats prefill points too: each gets at least N cold requests, so it has a spread to show.
export const prefillRepeatsOf = (s: Pick<RunSettings, 'prefillRepeats' | 'repeats'>): number =>
  Math.max(s.prefillRepeats, s.repeats);

// --resume DIR, or --resume alone ('') with --out pointing at the run folder.
export const resumeDirOf = (s: Pick<RunSettings, 'resume' | 'out'>): string | undefined =>
  s.resume === '' ? s.out : s.resume;

export function newRunId(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

// Strips userinfo and adds /v1 when missing: a result never carries credentials.
export function normalizeBaseUrl(raw: string): string {
  const u = new URL(raw);
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  let path = u.pathname.replace(/\/+$/, '');
  if (!/\/v\d+$/.test(path)) path += '/v1';
  u.pathname = path;
  return u.toString().replace(/\/$/, '');
}
