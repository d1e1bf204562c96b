import type { HttpResult } from '../client/http.js';
import type { PromIndex } from './prometheus.js';
import { parsePrometheus } from './prometheus.js';
import type { Discovery, ProbeContext } from './types.js';

export function okJson(r: HttpResult): Record<string, unknown> | undefined {
  if (!r.ok) return undefined;
  const j = r.body;
  return j && typeof j === 'object' && !Array.isArray(j) ? (j as Record<string, unknown>) : undefined;
}

export function okText(r: HttpResult): string | undefined {
  return r.ok ? r.text : undefined;
}

export function num(v: unknown): number | undefined {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

export function posInt(v: unknown): number | undefined {
  const n = num(v);
  return n !== undefined && n > 0 ? Math.floor(n) : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

export function obj(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

// Prometheus at `path`, or undefined when absent (404, JSON, HTML, auth required).
export async function promAt(ctx: ProbeContext, path: string): Promise<PromIndex | undefined> {
  const text = okText(await ctx.get(path));
  const t = text?.trimStart();
  if (!t || t[0] === '{' || t[0] === '[' || t[0] === '<') return undefined;
  const index = parsePrometheus(text!);
  return index.size > 0 ? index : undefined;
}

// `0.30.1rc1.dev162+g2617fe938` carries the commit after `+g`.
export function commitFromVersion(version: string | undefined): string | undefined {
  const m = version ? /\+g([0-9a-f]{7,40})\b/.exec(version) : null;
  return m?.[1];
}

// A tokenize call sized for its text: a 1M-token prompt is megabytes of JSON, which a busy server can take tens of
// seconds to tokenize, so the probe's short timeout would turn a slow answer into a failure.
export function tokenizeTimeoutMs(ctx: ProbeContext, chars: number): number {
  return Math.max(ctx.timeoutMs, 30_000 + Math.ceil(chars / 100_000) * 1000);
}

export const userMessage = (text: string) => [{ role: 'user', content: text }];

type Count = (text: string, api: 'chat' | 'completions') => Promise<number | undefined>;

// The tokenize a run sizes prompts with: chat prompts counted with the template when the server renders
// `messages` (rendered), else the content alone (the prompt factory then adds the template's tokens).
export function useTokenize(d: Discovery, count: Count, rendered: boolean, endpoint: string): void {
  d.tokenize = (text, api) => count(text, rendered ? api : 'completions');
  d.tokenizeCoversTemplate = rendered;
  d.tokenizeMethod = rendered
    ? `POST ${endpoint} with messages (chat template included)`
    : `POST ${endpoint} with prompt (content only)`;
}
