import { z } from 'zod';
import { FLAVORS } from '../engines/index.js';
import { DEFAULT_CHAT_TEMPLATE } from './tokenizer.js';

export { FLAVORS };
export const FlavorSchema = z.enum(FLAVORS);
export type Flavor = z.infer<typeof FlavorSchema>;

// [x, y] points, x strictly ascending; interpolated (see curves.ts).
const Curve = z
  .array(z.tuple([z.number().positive(), z.number().positive()]))
  .min(1)
  .refine((pts) => pts.every((p, i) => i === 0 || p[0] > pts[i - 1]![0]), 'x values must ascend');

// The profile format (docs/sim.md documents every field). Times are real-hardware times; timeScale speeds them up.
export const ProfileSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    flavor: FlavorSchema.default('vllm'),
    servedModelName: z.string().min(1),
    maxModelLen: z.number().int().positive(),
    kvCapacityTokens: z.number().int().positive(),
    blockSize: z.number().int().positive().default(16),
    maxNumSeqs: z.number().int().positive(),
    maxBatchedTokens: z.number().int().positive(),
    prefillTokensPerS: Curve, // [contextTokens, prompt tok/s], log-interpolated in context
    decodeStepMs: Curve, // [batch size, ms per engine step], linear in batch
    decodeContextSlopeMsPerMTokens: z.number().nonnegative().default(0),
    prefillOnlyStepMs: z.number().nonnegative().default(0), // fixed cost of a step with no decode in it
    // API server time before a request reaches the engine: requestOverheadMs + prompt tokens / apiTokensPerS
    // (tokenization, templating); it delays requests, never the engine's steps.
    requestOverheadMs: z.number().nonnegative().default(0),
    apiTokensPerS: z.number().nonnegative().default(0), // 0 = no per-token cost
    // Of each request, apiSerialMs + prompt tokens / apiSerialTokensPerS is spent one request at a time (the API
    // server's one thread: templating, tokenizing), so requests that arrive together reach the engine spread out.
    apiSerialMs: z.number().nonnegative().default(0),
    apiSerialTokensPerS: z.number().nonnegative().default(0), // 0 = no per-token serial cost
    speculative: z
      .object({ k: z.number().int().positive(), meanTokens: z.number().min(1) })
      .refine((s) => s.meanTokens < s.k + 1, 'meanTokens must be below k + 1')
      .nullable()
      .default(null),
    reasoningTokens: z.number().int().nonnegative().default(0), // first R output tokens are reasoning
    earlyStopRate: z.number().min(0).max(1).default(0.1), // share of requests that hit EOS early (unless ignore_eos)
    prefixCaching: z.boolean().default(true),
    promptTokensDetails: z.boolean().default(false), // vLLM --enable-prompt-tokens-details / SGLang --enable-cache-report
    timeScale: z.number().positive().default(1), // 10 = every duration divided by 10 (what-if replay, calibration)
    metrics: z.boolean().default(true),
    sseKeepAliveMs: z.number().int().positive().default(15_000), // tgi keep-alive, llamacpp ping
    maxConcurrentRequests: z.number().int().positive().default(128), // tgi: 429 beyond this
    maxQueue: z.number().int().positive().default(512), // ollama: 503 beyond this
    // llama.cpp --kv-unified: every slot addresses one pool of kvCapacityTokens (-c); a full pool fails every
    // running request. Off: each of maxNumSeqs (-np) slots gets its own share (serving-limits.ts).
    kvUnified: z.boolean().default(false),
    // llama.cpp: tokens of slot states its host-memory prompt cache keeps (--cache-ram over the KV bytes of a
    // token); 0 = no such cache (--cache-ram 0); null = the pool's tokens (-c), llama-server's token limit.
    promptCacheTokens: z.number().int().nonnegative().nullable().default(null),
    // Template tokens a chat request's prompt gets (tokenizer.ts renderChat): a common start, per message, and
    // the generation prompt; one user message costs 15 by default, as real chat templates do.
    chatTemplate: z
      .object({
        startTokens: z.number().int().nonnegative(),
        perMessageTokens: z.number().int().min(2),
        generationPromptTokens: z.number().int().min(1),
      })
      .strict()
      .default(DEFAULT_CHAT_TEMPLATE),
    engine: z
      .object({
        version: z.string().default('0.0.0-sim'),
        commit: z.string().optional(),
        quantization: z.string().optional(),
        backend: z.string().optional(),
        build: z.string().optional(),
      })
      .default({ version: '0.0.0-sim' }),
    hardware: z
      .object({
        gpuName: z.string().optional(),
        gpuCount: z.number().int().positive().optional(),
        gpuMemoryGb: z.number().positive().optional(),
      })
      .default({}),
    launchCommand: z.string().optional(),
    // A twin's fit provenance and fit quality (src/twin/twin-file.ts); the engine ignores it.
    twin: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type Profile = z.infer<typeof ProfileSchema>;
export type ProfileInput = z.input<typeof ProfileSchema>;
