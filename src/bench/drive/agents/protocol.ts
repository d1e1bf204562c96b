import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../../errors.js';
import { ERROR_KINDS } from '../../../failures/kinds.js';
import type { ClientLoad } from '../../../client/self-check.js';
import { RequestLine, RequestTag } from '../../../results/request-line.js';
import type { SenderConfig, Sent } from '../sender.js';
import { WORKLOAD_KINDS } from '../../../workloads/spec.js';
import type { DriveSpec } from '../runner.js';
import type { WorkerInfo } from '../workers/protocol.js';
import type { ClockOffset } from '../runner.js';

// The messages between the coordinator (agent 0) and the other agents (docs/distributed.md "A cell over K agents").
// JSON on the wire; whatever arrives is parsed by the schemas below before it is used (an agent's records become the
// result). Times are on the sender's clock unless named otherwise.

// 2: a level's sessions (spec, share as first and step) where 1 had a cell's slots.
export const PROTOCOL_VERSION = 2;

// The sender's settings without the API key: each agent reads its own (a Kubernetes Secret, a file), so the key
// never crosses the coordinator's link.
export type AgentSenderConfig = Omit<SenderConfig, 'apiKey'>;

export interface AgentSlot {
  slot: number;
  estTokens: number;
  text?: string; // absent: the agent has had this slot's prompt since an earlier level of the same context
}

export type ToAgent =
  | {
      type: 'welcome';
      runId: string;
      agents: number;
      cfg: AgentSenderConfig;
      info: WorkerInfo;
      timeoutMs: number; // silence after which either side takes the other for lost
    }
  // The agent's share of a level (spec.share): it builds the sessions' plans from the spec, takes the slots' prompts
  // from `slots` (a closed level of the fixed workload) and every other prompt from the spec's bank.
  | { type: 'level'; seq: number; spec: DriveSpec; workers?: number; slots: AgentSlot[] }
  | { type: 'start'; seq: number; atMs: number } // coordinator clock: the level's zero (a closed level's ramp)
  | { type: 'open'; seq: number; openMs: number; closeMs: number } // coordinator clock: the window
  | { type: 'close'; seq: number } // now (the cell ended early, or the coordinator's close)
  | { type: 'ping' }
  // The run ended (docs/distributed.md "When something fails"): 'complete' releases the agent, which closes its
  // connection and exits 0 (the coordinator waits for that before it closes its endpoint); any other status (the
  // run's, or 'stopped') leaves it waiting --agent-wait for a resumed coordinator.
  | { type: 'done'; status: string };

export type FromAgent =
  | { type: 'ready'; seq: number; before: ClockOffset }
  | { type: 'first'; seq: number; session: number }
  | { type: 'error'; seq: number; fatal?: { code: ErrorCode; sent: Sent } }
  | { type: 'records'; seq: number; sent: Sent[] }
  | { type: 'finished'; seq: number; after?: ClockOffset; load?: ClientLoad; records: number; crash?: string }
  | { type: 'beat' };

export interface Hello {
  protocol: number;
  index: number;
  agents: number;
  host: string; // the agent's host name, to name it in a failure
  runId?: string; // an agent that has served a run rejoins only that run
}

// ---- schemas of what arrives ----

const finite = z.number().finite();
const Offset = z.object({ offsetMs: finite, uncertaintyMs: finite.nonnegative(), atMs: finite });
// A record and its tag carry the request line's fields (src/results/request-line.ts), under the same schemas.
const line = RequestLine.shape;
const Record_ = z.looseObject({
  calledAtMs: line.calledAtMs,
  sentAtMs: line.sentAtMs,
  headersAtMs: finite.optional(),
  firstTokenAtMs: line.firstTokenAtMs,
  endAtMs: line.endAtMs,
  chunks: line.chunks,
  outputTokens: line.outputTokens,
  tokenCountSource: line.tokenCountSource,
  chunkTexts: z.array(z.string()).optional(),
  ok: z.boolean(),
  error: z
    .looseObject({ kind: z.enum(ERROR_KINDS), message: z.string(), status: z.number().optional() })
    .optional(),
});
const Spec = RequestTag.extend({ maxOutput: z.number().int().positive() }).loose();
const WireSent = z.object({
  spec: Spec,
  requestId: line.requestId,
  record: Record_,
  estTokens: z.number(),
  repeat: line.repeat,
});
const Code = z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]);
const Load = z.object({
  loopDelayP99Ms: finite,
  loopDelayMaxMs: finite,
  cpuPctPerThread: finite,
  threads: z.number().int().positive(),
  wallMs: finite,
  busiestLoopPct: finite.optional(),
  busiestLoop: z.string().optional(),
});
const seq = z.number().int().nonnegative();
const slot = z.number().int().positive();

const FromAgentSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), seq, before: Offset }),
  z.object({ type: z.literal('first'), seq, session: slot }),
  z.object({
    type: z.literal('error'),
    seq,
    fatal: z.object({ code: Code, sent: WireSent }).optional(),
  }),
  z.object({ type: z.literal('records'), seq, sent: z.array(WireSent) }),
  z.object({
    type: z.literal('finished'),
    seq,
    after: Offset.optional(),
    load: Load.optional(),
    records: z.number().int().nonnegative(),
    crash: z.string().optional(),
  }),
  z.object({ type: z.literal('beat') }),
]);

// The level is checked for its shape here and for its sense by planLevel (src/load), which the agent runs on it.
const DriveSpecSchema = z.looseObject({
  cell: z.string(),
  label: z.string(),
  level: z.looseObject({
    runId: z.string(),
    seed: finite,
    row: z.string(),
    key: z.string(),
    load: z.looseObject({ model: z.enum(['closed', 'open', 'trace']) }),
    workload: z.looseObject({ spec: z.looseObject({ kind: z.enum(WORKLOAD_KINDS) }) }),
    maxOutput: z.number().int().positive(),
  }),
  firstTokenTimeoutMs: z.number().positive(),
  share: z.object({ first: slot, step: slot }).optional(),
  tagSessions: z.boolean().optional(),
  window: z.object({ openAfterMs: finite, closeAfterMs: finite }).optional(),
  maxInFlight: slot.optional(),
  bank: z
    .looseObject({ words: z.array(z.string()), api: z.enum(['chat', 'completions']), seed: finite })
    .optional(),
});
const ToAgentSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('welcome'),
    runId: z.string(),
    agents: z.number().int().positive(),
    cfg: z.looseObject({ baseUrl: z.string(), api: z.enum(['chat', 'completions']), idPrefix: z.string() }),
    info: z.looseObject({ model: z.string() }),
    timeoutMs: z.number().positive(),
  }),
  z.object({
    type: z.literal('level'),
    seq,
    spec: DriveSpecSchema,
    workers: z.number().int().positive().optional(),
    slots: z.array(z.object({ slot, estTokens: z.number(), text: z.string().optional() })),
  }),
  z.object({ type: z.literal('start'), seq, atMs: finite }),
  z.object({ type: z.literal('open'), seq, openMs: finite, closeMs: finite }),
  z.object({ type: z.literal('close'), seq }),
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('done'), status: z.string() }),
]);

const HelloSchema = z.object({
  protocol: z.number().int(),
  index: z.number().int().nonnegative(),
  agents: z.number().int().positive(),
  host: z.string().max(256),
  runId: z.string().optional(),
});

// A parse that never throws: a message that does not match is dropped by the caller and named in its error.
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function parseWith<T>(schema: z.ZodType, data: unknown): Parsed<T> {
  const r = schema.safeParse(data);
  if (r.success) return { ok: true, value: r.data as T };
  const issue = r.error.issues[0];
  return { ok: false, error: `${issue?.path.join('.') || 'message'}: ${issue?.message ?? 'invalid'}` };
}

// The wire types above are the TypeScript view of these schemas (loose objects keep the fields the types name).
export const parseFromAgent = (data: unknown): Parsed<FromAgent> => parseWith(FromAgentSchema, data);
export const parseToAgent = (data: unknown): Parsed<ToAgent> => parseWith(ToAgentSchema, data);
export const parseHello = (data: unknown): Parsed<Hello> => parseWith(HelloSchema, data);
