import type { EngineName } from './types.js';

// KV capacity read from a server's launch command (docs/engines.md "KV capacity: where it comes from, and how sure"):
// exact where the flags size the pool, which for llama.cpp is the only exact source (its API shows the per-slot
// context only). Undefined when the command is not that engine's server or does not carry the flags.
export interface LaunchCapacity {
  tokens: number;
  source: string; // the flags it came from, in words
}

// Words of a shell command line as cmdlineToShell writes it ('...' quoting with '\'' escapes), plus "..." quoting.
export function shellWords(command: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < command.length) cur += command[++i];
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < command.length) {
      cur += command[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
    }
  }
  if (has || cur) out.push(cur);
  return out;
}

// Value of the first of `names` present: "--name value" or "--name=value".
function flagValue(words: string[], names: string[]): string | undefined {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    for (const n of names) {
      if (w === n && i + 1 < words.length) return words[i + 1];
      if (w.startsWith(`${n}=`)) return w.slice(n.length + 1);
    }
  }
  return undefined;
}

const intOf = (v: string | undefined): number | undefined => {
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  return Number(v);
};

const basenames = (words: string[]) => words.map((w) => w.split('/').pop() ?? w);
const pad256 = (n: number) => Math.ceil(n / 256) * 256;

// llama.cpp's own sizing (llama-context.cpp): n_ctx = GGML_PAD(-c or n_ctx_train, 256); split KV (-np N, no
// --kv-unified) resizes it to N x GGML_PAD(n_ctx / N, 256). Without -np the server picks 4 slots sharing one
// unified pool (late-2025 builds on).
function llamacpp(words: string[], nCtxTrain: number | undefined): LaunchCapacity | undefined {
  if (!basenames(words).some((w) => /^llama-server(\.exe)?$/.test(w))) return undefined;
  const c = intOf(flagValue(words, ['-c', '--ctx-size'])) ?? 0;
  const ctx = c > 0 ? c : nCtxTrain;
  if (!ctx) return undefined;
  const np = intOf(flagValue(words, ['-np', '--parallel']));
  const unified = words.includes('--kv-unified') || words.includes('-kvu') || np === undefined;
  const nCtx = pad256(ctx);
  const ctxWords = c > 0 ? `-c ${c}` : `-c 0 (n_ctx_train ${ctx})`;
  if (unified || np === undefined || np <= 1) {
    const how = np === undefined ? 'no -np: 4 slots, unified KV' : unified ? '--kv-unified' : '1 slot';
    return { tokens: nCtx, source: `launch command ${ctxWords}, ${how}` };
  }
  const perSlot = pad256(Math.floor(nCtx / np));
  return { tokens: perSlot * np, source: `launch command ${ctxWords} -np ${np}: ${np} slots × ${perSlot}` };
}

function vllm(words: string[]): LaunchCapacity | undefined {
  if (!basenames(words).some((w) => w === 'vllm' || w.startsWith('vllm.'))) return undefined;
  const blocks = intOf(flagValue(words, ['--num-gpu-blocks-override']));
  if (!blocks) return undefined;
  const size = intOf(flagValue(words, ['--block-size'])) ?? 16;
  return {
    tokens: blocks * size,
    source: `launch command --num-gpu-blocks-override ${blocks} × block ${size}`,
  };
}

function sized(words: string[], program: RegExp, flag: string): LaunchCapacity | undefined {
  if (!words.some((w) => program.test(w))) return undefined;
  const n = intOf(flagValue(words, [flag]));
  return n ? { tokens: n, source: `launch command ${flag} ${n}` } : undefined;
}

export function capacityFromLaunch(
  engine: EngineName,
  command: string,
  o: { nCtxTrain?: number } = {},
): LaunchCapacity | undefined {
  const words = shellWords(command);
  switch (engine) {
    case 'llamacpp':
      return llamacpp(words, o.nCtxTrain);
    case 'vllm':
      return vllm(words);
    case 'sglang':
      return sized(words, /sglang/, '--max-total-tokens');
    case 'tgi':
      return sized(words, /text-generation-launcher|text-generation-router/, '--max-batch-total-tokens');
    default:
      return undefined;
  }
}
