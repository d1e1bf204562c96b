// Quantities as people write them in flags, YAML and workload specs (docs/cli.md), read in one place.

const UNIT_S: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };

// Seconds from 30, 30s, 2m, 1.5h or 500ms; undefined when it is none of these.
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * UNIT_S[(m[2] ?? 's').toLowerCase()]!;
}
