import { z } from 'zod';

// sweep.json (docs/sweep.md "The sweep folder"): what a sweep measures, where each run lives and how each
// configuration ended. Written atomically after every change of state, so a kill -9 leaves the last state on
// disk; the runs' own result.json files hold the measurements. Secrets never reach it (redacted).

export const SWEEP_SCHEMA_ID = 'llm-inference-bench/sweep';
export const SWEEP_SCHEMA_VERSION = 1;
export const SWEEP_FILE = 'sweep.json';

const Scalar = z.union([z.string(), z.number(), z.boolean()]);
const ParamValue = z.union([Scalar, z.array(Scalar)]);

// The process group of a server while it runs: enough to find it again after a kill -9 of the sweep, and to
// check that the pid still belongs to the command the sweep started (src/sweep/procfs.ts).
export const ServerProcess = z.object({
  pid: z.number().int().positive(), // the group leader; pgid = pid
  startTicks: z.number().int().nonnegative().optional(), // /proc/<pid>/stat field 22: tells a reused pid apart
  marker: z.string(), // LLM_BENCH_SWEEP_SERVER=<marker> in the environment of every process of the group
  port: z.number().int().positive(),
  startedAt: z.string(),
});
export type ServerProcess = z.infer<typeof ServerProcess>;

export const SweepServer = z.object({
  key: z.string(), // folder under the sweep folder: "01-np=4"
  name: z.string(), // "np=4 c=64K"
  params: z.record(z.string(), ParamValue),
  env: z.record(z.string(), z.string()),
  command: z.string().optional(), // the last launch, redacted ("ENV=... cmd ...")
  log: z.string(), // server log, relative to the sweep folder
  process: ServerProcess.optional(), // present while it may be running
});
export type SweepServer = z.infer<typeof SweepServer>;

export const SweepRunStatus = z.enum(['pending', 'running', 'complete', 'failed', 'interrupted']);
export type SweepRunStatus = z.infer<typeof SweepRunStatus>;

export const SweepRun = z.object({
  key: z.string(), // its folder (holding result.json), relative to the sweep folder
  name: z.string(), // "np=4 c=64K" or "np=4 c=64K · maxOutput=256"
  server: z.string(), // key of its SweepServer
  bench: z.record(z.string(), ParamValue).optional(), // the bench params of this run
  linked: z.array(z.string()), // what --link-vars set: "np=4: concurrency 1,2,4"
  status: SweepRunStatus,
  reason: z.string().optional(), // why it failed, in words
  logTail: z.array(z.string()).optional(), // the server log's last lines when it failed
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
});
export type SweepRun = z.infer<typeof SweepRun>;

export const SweepFile = z.object({
  schema: z.literal(SWEEP_SCHEMA_ID),
  version: z.literal(SWEEP_SCHEMA_VERSION),
  sweepId: z.string(),
  title: z.string().optional(),
  tool: z.object({ name: z.string(), version: z.string() }),
  status: z.enum(['running', 'complete', 'interrupted', 'failed']),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  serveCmd: z.string(), // the template, redacted
  serveParams: z.string(), // the file it came from
  benchParams: z.string().optional(),
  linkVars: z.string().optional(),
  options: z.record(z.string(), z.unknown()), // the run options every run starts from (no secrets)
  servers: z.array(SweepServer),
  runs: z.array(SweepRun),
});
export type SweepFile = z.infer<typeof SweepFile>;
