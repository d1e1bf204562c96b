import { cellKey } from '../cell-rules.js';
// The `cell` field of requests.jsonl: "prefill 8192" or "decode 8192x4". Built and read back only here.
export type CellKey =
  { kind: 'prefill'; contextTokens: number } | { kind: 'decode'; contextTokens: number; concurrency: number };

export const prefillKey = (contextTokens: number): string => `prefill ${contextTokens}`;

export const decodeKey = (contextTokens: number, concurrency: number): string =>
  `decode ${cellKey(contextTokens, concurrency)}`;

const PATTERN = /^(?:prefill (\d+)|decode (\d+)x(\d+))$/;

// undefined for anything else ("connect", a torn or foreign line).
export function parseCellKey(key: string): CellKey | undefined {
  const m = PATTERN.exec(key);
  if (!m) return undefined;
  if (m[1] !== undefined) return { kind: 'prefill', contextTokens: Number(m[1]) };
  return { kind: 'decode', contextTokens: Number(m[2]), concurrency: Number(m[3]) };
}
