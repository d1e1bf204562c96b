// Prompts that hit their target token count (chat template included) within 1% (METHOD.md "Prompts"):
// the server's tokenizer when there is one (secant search on the character length, chars-per-token cached
// per context), else calibration probes (`max_tokens: 1` on two short prompts, reading usage.prompt_tokens)
// fitted as tokens = overhead + chars / charsPerToken and scaled to the target.
import { postJson } from '../client/http.js';
import { buildPromptText, type PromptSpec } from './build.js';

export { buildPromptText, promptHead, CLOSING_INSTRUCTION } from './build.js';
export type { PromptSpec } from './build.js';

export interface PromptFactory {
  prompt(contextTokens: number, slot: number): Promise<{ text: string; estTokens: number }>;
  /** How the counts are known: 'tokenize' (exact), 'calibration' (probes), 'estimate' (probes failed). */
  readonly source: () => 'tokenize' | 'calibration' | 'estimate';
}

export interface PromptFactoryOptions {
  runId: string;
  seed: number;
  baseUrl: string;
  apiKey?: string;
  model: string;
  api: 'chat' | 'completions';
  tokenize?: (text: string) => Promise<number | undefined>;
  /** Tolerance of the tokenizer search as a fraction of the target (default 0.2%, well inside 1%). */
  tolerance?: number;
  probeTimeoutMs?: number;
}

const DEFAULT_CHARS_PER_TOKEN = 4;
const MAX_TOKENIZE_STEPS = 8;
const PROBE_CHARS = [12_000, 6_000, 3_000];
const SMALL_PROBE_CHARS = 1_500;

interface Fit {
  overheadTokens: number;
  charsPerToken: number;
}

export async function createPromptFactory(opts: PromptFactoryOptions): Promise<PromptFactory> {
  const tol = opts.tolerance ?? 0.002;
  const cptByContext = new Map<number, number>();
  let lastCpt = DEFAULT_CHARS_PER_TOKEN;
  let tokenizeWorks = opts.tokenize !== undefined;
  let fit: Promise<Fit | undefined> | undefined;
  let source: 'tokenize' | 'calibration' | 'estimate' = tokenizeWorks ? 'tokenize' : 'calibration';

  const probe = async (text: string): Promise<number | undefined> => {
    const body: Record<string, unknown> = { model: opts.model, max_tokens: 1, stream: false };
    if (opts.api === 'chat') body.messages = [{ role: 'user', content: text }];
    else body.prompt = text;
    const r = await postJson<{ usage?: { prompt_tokens?: unknown } }>(
      opts.baseUrl,
      opts.api === 'chat' ? '/chat/completions' : '/completions',
      body,
      { apiKey: opts.apiKey, timeoutMs: opts.probeTimeoutMs ?? 120_000 },
    );
    const n = r.ok ? r.body.usage?.prompt_tokens : undefined;
    return typeof n === 'number' && n > 0 ? n : undefined;
  };

  const calibrate = async (): Promise<Fit | undefined> => {
    const spec = (slot: number): PromptSpec => ({
      runId: `${opts.runId}-calibration`,
      contextTokens: 0,
      slot,
      seed: opts.seed,
    });
    const smallText = buildPromptText(spec(0), DEFAULT_CHARS_PER_TOKEN, SMALL_PROBE_CHARS);
    const small = await probe(smallText);
    if (small === undefined) return undefined;
    for (const chars of PROBE_CHARS) {
      const bigText = buildPromptText(spec(1), DEFAULT_CHARS_PER_TOKEN, chars);
      const big = await probe(bigText);
      if (big === undefined || big <= small) continue;
      const charsPerToken = (bigText.length - smallText.length) / (big - small);
      return { charsPerToken, overheadTokens: small - smallText.length / charsPerToken };
    }
    return undefined;
  };

  const viaTokenizer = async (spec: PromptSpec) => {
    const target = spec.contextTokens;
    const tolTokens = Math.max(1, Math.floor(target * tol));
    let cpt = cptByContext.get(target) ?? lastCpt;
    let chars = Math.round(target * cpt);
    let best: { text: string; n: number } | undefined;
    for (let step = 0; step < MAX_TOKENIZE_STEPS; step++) {
      const text = buildPromptText(spec, cpt, chars);
      const n = await opts.tokenize!(text);
      if (n === undefined || !(n > 0)) return undefined;
      if (!best || Math.abs(n - target) < Math.abs(best.n - target)) best = { text, n };
      if (Math.abs(n - target) <= tolTokens) break;
      cpt = text.length / n;
      chars = Math.max(1, Math.round(text.length + (target - n) * cpt));
    }
    if (best) {
      cptByContext.set(target, best.text.length / best.n);
      lastCpt = best.text.length / best.n;
    }
    return best && { text: best.text, estTokens: best.n };
  };

  return {
    source: () => source,
    async prompt(contextTokens: number, slot: number) {
      const spec: PromptSpec = { runId: opts.runId, contextTokens, slot, seed: opts.seed };
      if (tokenizeWorks) {
        const r = await viaTokenizer(spec);
        if (r) return r;
        tokenizeWorks = false; // the endpoint stopped answering: fall back to calibration
        source = 'calibration';
      }
      fit ??= calibrate();
      const f = await fit;
      if (!f) {
        source = 'estimate';
        const text = buildPromptText(spec, DEFAULT_CHARS_PER_TOKEN);
        return { text, estTokens: Math.round(text.length / DEFAULT_CHARS_PER_TOKEN) };
      }
      const chars = Math.max(1, Math.round((contextTokens - f.overheadTokens) * f.charsPerToken));
      const text = buildPromptText(spec, f.charsPerToken, chars);
      return { text, estTokens: Math.round(f.overheadTokens + text.length / f.charsPerToken) };
    },
  };
}
