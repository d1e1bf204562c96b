import { FLAVORS } from '../engines/index.js';
import { COMPARE_FORMATS, REPORT_FORMATS } from '../output-formats.js';
import type { ServiceLevel } from '../results/schema.js';
import { ARRIVAL_KINDS, DEFAULT_MAX_OUTPUT } from '../cell-rules.js';
import type { WorkloadSpec } from '../workloads/spec.js';

// The one option table: it builds every command's flags and --help, the YAML config schema, the typed options each
// command receives (Options<'run'>), where each option lands in result.json, and docs/cli.md's table. A flag, its
// YAML key and its field in the result's config section share one name (docs/architecture.md "Adding a run option").
export type OptionKind =
  | 'string'
  | 'url'
  | 'int'
  | 'number'
  | 'duration' // seconds: 30, 30s, 2m, 1.5h
  | 'bool'
  | 'tokens' // 8K, 1M, 8192
  | 'tokens-list'
  | 'int-list'
  | 'percent' // 5% or 5: a share from 0 up to (not including) 100%, as a fraction
  | 'cell-list' // decode cells, context x concurrency: 8Kx1,8Kx16
  | 'capacity' // KV tokens (3M) or a factor of a fitted capacity (1.5x)
  | 'slo' // a service level: ttft=2s,tok/s=20,share=90% or a name (src/stats/slo.ts)
  | 'rate-list' // arrival rates in req/s: 0.5,1,2
  | 'workload'; // --workload's spec (src/workloads/spec.ts), or the same keys as a YAML object
export const COMMANDS = [
  'run',
  'plan',
  'probe',
  'demo',
  'sim',
  'serve',
  'fit',
  'predict',
  'report',
  'compare',
  'import',
  'sweep',
  'quick',
  'deploy',
  'share',
] as const;
export type CommandName = (typeof COMMANDS)[number];

// The config fields a run builds from several options (src/config/traffic.ts): the workload and the load model.
export type TrafficConfigKey = 'workload' | 'load';

// Where a run option lands in result.json: 'config' = config.<key> (same name); 'sampling' = config.sampling under
// its API name (`wire`), exactly as sent; otherwise a metadata field the run reports (given or discovered).
export type ResultPath =
  | 'config'
  | 'sampling'
  | 'runId'
  | 'title'
  | 'launchCommand'
  | `config.${TrafficConfigKey}${string}` // inside config.workload or config.load (src/config/traffic.ts)
  | `target.${string}`
  | `engine.${string}`
  | `hardware.${string}`;

export interface OptionSpec {
  flag: string; // commander flag syntax
  description: string;
  kind: OptionKind;
  commands: readonly CommandName[];
  choices?: readonly string[];
  defaultValue?: string | number | boolean; // applied after flags and config merge
  defaultFor?: Partial<Record<CommandName, string | number | boolean>>; // a command's own default
  about?: Partial<Record<CommandName, string>>; // a command's own description of the option
  // The command works its default out itself (no table default applies there); this text shows it in --help.
  computedDefault?: Partial<Record<CommandName, string>>;
  kindFor?: Partial<Record<CommandName, OptionKind>>; // a command that reads the same flag more widely
  choicesFor?: Partial<Record<CommandName, readonly string[]>>; // a command's own choices
  requiredFor?: readonly CommandName[]; // commands that cannot run without the option
  configFile?: true; // a YAML key of --config (run and plan); secrets and per-invocation switches are not
  result?: ResultPath; // absent: not stored (secrets, output folder, display switches)
  wire?: string; // the API field of a 'sampling' option
  // --resume: the stored value wins, except 'flag' (the flag when given, else the stored value: the server may have
  // moved) and 'hint' (only the flag: it guides detection, which runs again).
  onResume?: 'flag' | 'hint';
  min?: number; // inclusive bounds for numbers
  max?: number;
}

// `sweep` takes every run option but the server's address and launch command, which it sets itself.
const runPlan = ['run', 'plan', 'sweep'] as const;
const RUN = ['run', 'sweep'] as const;
const TARGET = ['run', 'plan', 'probe', 'sweep', 'quick'] as const; // the options that reach a server
const META = ['run', 'probe', 'sweep'] as const; // facts for the report that discovery cannot always find
const SWEEP = ['sweep'] as const;
// One run over several agents (docs/distributed.md): a sweep's runs are one client each.
const AGENTS = ['run'] as const;

export const OPTION_TABLE = {
  baseUrl: {
    flag: '--base-url <url>',
    kind: 'url',
    commands: ['run', 'plan', 'probe', 'quick'],
    configFile: true,
    result: 'target.baseUrl',
    onResume: 'flag',
    description: 'server base URL, e.g. http://127.0.0.1:8000/v1 (/v1 is added when missing)',
  },
  model: {
    flag: '--model <name>',
    kind: 'string',
    commands: TARGET,
    configFile: true,
    result: 'target.model',
    description: 'served model name (default: the only or first model the server lists)',
  },
  api: {
    flag: '--api <api>',
    kind: 'string',
    choices: ['chat', 'completions'],
    defaultValue: 'chat',
    commands: runPlan,
    configFile: true,
    result: 'target.api',
    description: 'endpoint to measure',
  },
  engine: {
    flag: '--engine <name>',
    kind: 'string',
    commands: TARGET,
    configFile: true,
    result: 'engine.name',
    onResume: 'hint', // the stored run keeps the engine it found
    description:
      'engine hint when discovery cannot tell (vllm, sglang, llamacpp, tgi, ollama, trtllm, generic)',
  },
  contexts: {
    flag: '--contexts <list>',
    kind: 'tokens-list',
    commands: ['run', 'plan', 'predict', 'sweep'],
    about: { predict: "decode contexts, e.g. 8K,32K,256K (default: the fitted run's)" },
    configFile: true,
    result: 'config',
    description: 'decode contexts, e.g. 8K,16K,32768 (default: 8K doubling to the max model length)',
  },
  prefillContexts: {
    flag: '--prefill-contexts <list>',
    kind: 'tokens-list',
    commands: ['run', 'plan', 'predict', 'sweep'],
    about: { predict: 'prefill contexts (default: the decode contexts)' },
    configFile: true,
    result: 'config',
    description: 'prefill contexts (default: decode contexts + the full window)',
  },
  concurrency: {
    flag: '--concurrency <list>',
    kind: 'int-list',
    commands: ['run', 'plan', 'predict', 'sweep', 'quick'],
    about: { predict: "concurrency levels, e.g. 1,16,256 (default: the fitted run's)" },
    computedDefault: { quick: '1,2,4,...,32, fewer where windows would drop under 2 s' },
    configFile: true,
    result: 'config',
    description: 'simultaneous requests per cell (default 1,2,4,...,128)',
    min: 1,
  },
  maxOutput: {
    flag: '--max-output <tokens>',
    kind: 'tokens',
    defaultValue: DEFAULT_MAX_OUTPUT,
    computedDefault: {
      predict: "the fitted run's",
      quick: 'sized so one user ends about 12 answers a window (docs/quick.md)',
    },
    commands: ['run', 'plan', 'predict', 'sweep', 'quick'],
    configFile: true,
    result: 'config',
    description: 'output cap per request',
  },
  duration: {
    flag: '--duration <seconds>',
    kind: 'duration',
    defaultValue: 30,
    defaultFor: { demo: 3 },
    computedDefault: { predict: "the fitted run's", quick: 'sized to fill --budget, 1-10 s' },
    about: { demo: 'measurement window per cell, at most 30 s' },
    commands: ['run', 'plan', 'demo', 'predict', 'sweep', 'quick'],
    configFile: true,
    result: 'config',
    description: 'measurement window per cell',
    min: 0.05,
  },
  prefillRepeats: {
    flag: '--prefill-repeats <n>',
    kind: 'int',
    defaultValue: 3, // three give each point an interval, so compare judges prefill (docs/method.md "Prefill")
    commands: runPlan,
    configFile: true,
    result: 'config',
    description:
      'cold prefill requests per context (median reported, outliers flagged; 1 saves time, but compare cannot judge a point without its spread)',
    min: 1,
  },
  repeats: {
    flag: '--repeats <n>',
    kind: 'int',
    defaultValue: 1,
    commands: [...runPlan, 'quick'],
    configFile: true,
    result: 'config',
    description: 'windows per decode cell, merged (mean, interval over them); prefill: at least n repeats',
    min: 1,
    max: 100,
  },
  // Traffic like production (docs/workloads.md): what each request asks, and when requests are sent. Stored in
  // config.workload and config.load, which src/config/traffic.ts builds from them.
  workload: {
    flag: '--workload <spec>',
    kind: 'workload',
    commands: runPlan,
    configFile: true,
    result: 'config.workload',
    computedDefault: { run: 'fixed', plan: 'fixed', sweep: 'fixed' },
    description:
      'what each request asks: fixed, lengths:in=normal(8K,2K),out=..., shared-prefix:prefixes=P,prefix=L,suffix=S, multi-turn:turns=T,think=2s,... or mooncake:file=F.jsonl (docs/workloads.md)',
  },
  rates: {
    flag: '--rates <list>',
    kind: 'rate-list',
    commands: runPlan,
    configFile: true,
    result: 'config.load.rates',
    description: 'open loop: arrival rates in requests per second, one load level each, e.g. 0.5,1,2,4',
  },
  arrival: {
    flag: '--arrival <process>',
    kind: 'string',
    choices: ARRIVAL_KINDS,
    commands: runPlan,
    configFile: true,
    result: 'config.load.arrival',
    computedDefault: {
      run: 'poisson (gamma with --burstiness)',
      plan: 'poisson (gamma with --burstiness)',
      sweep: 'poisson (gamma with --burstiness)',
    },
    description: 'how arrivals are spaced at a rate',
  },
  burstiness: {
    flag: '--burstiness <b>',
    kind: 'number',
    commands: runPlan,
    configFile: true,
    result: 'config.load.burstiness',
    description:
      "gamma arrivals' shape: gaps of coefficient of variation 1/sqrt(B); 1 is Poisson, < 1 burstier",
    min: 0.001,
  },
  maxInFlight: {
    flag: '--max-in-flight <m>',
    kind: 'int',
    commands: runPlan,
    configFile: true,
    result: 'config.load.maxInFlight',
    description:
      "at a rate, an arrival waits client-side until fewer than M are in flight (a gateway's cap; the wait counts in TTFT)",
    min: 1,
  },
  findRate: {
    flag: '--find-rate',
    kind: 'bool',
    commands: runPlan,
    configFile: true,
    result: 'config.load.findRate',
    description:
      'search, per row, the highest arrival rate that meets the service level (--slo): doubling, then bisecting, one window a step',
  },
  searchWindows: {
    flag: '--search-windows <n>',
    kind: 'int',
    commands: runPlan,
    configFile: true,
    result: 'config.load.searchWindows',
    computedDefault: { run: '8', plan: '8', sweep: '8' },
    description: 'the most levels --find-rate measures per row',
    min: 1,
    max: 64,
  },
  trace: {
    flag: '--trace <file>',
    kind: 'string',
    commands: runPlan,
    configFile: true,
    result: 'config.load.trace',
    description:
      "replay a trace's schedule (JSON lines with timestamp in ms); a Mooncake trace (hash_ids) is the workload too",
  },
  blockSize: {
    flag: '--block-size <tokens>',
    kind: 'tokens',
    commands: runPlan,
    configFile: true,
    result: 'config.workload.block',
    computedDefault: { run: '512', plan: '512', sweep: '512' },
    description: "tokens of one hash id of a Mooncake trace's prompts",
  },
  warmup: {
    flag: '--warmup <seconds>',
    kind: 'duration',
    commands: runPlan,
    configFile: true,
    result: 'config.load.warmup',
    defaultValue: 10,
    description: 'at a rate or a trace: arrivals before each window, left out of every figure',
    min: 0,
  },
  drainTimeout: {
    flag: '--drain-timeout <seconds>',
    kind: 'duration',
    commands: runPlan,
    configFile: true,
    result: 'config.load.drainTimeout',
    defaultValue: 60,
    description:
      "at a rate or a trace: how long the window's requests may run past its close before they are aborted (unfinished)",
    min: 0,
  },
  rampTimeout: {
    flag: '--ramp-timeout <seconds>',
    kind: 'duration',
    defaultValue: 30,
    commands: RUN,
    configFile: true,
    result: 'config',
    description: 'longest wait for all N first tokens before the window opens anyway',
    min: 0.01,
  },
  settleTimeout: {
    flag: '--settle-timeout <seconds>',
    kind: 'duration',
    defaultValue: 30,
    commands: RUN,
    configFile: true,
    result: 'config',
    description: 'longest wait for the server to drain between cells',
    min: 0,
  },
  settlePause: {
    flag: '--settle-pause <seconds>',
    kind: 'duration',
    defaultValue: 1,
    commands: RUN,
    configFile: true,
    result: 'config',
    description: 'pause between cells when the server has no metrics',
    min: 0,
  },
  metricsInterval: {
    flag: '--metrics-interval <seconds>',
    kind: 'duration',
    defaultValue: 1,
    commands: RUN,
    configFile: true,
    result: 'config',
    description: 'server metrics sampling period during a window',
    min: 0.01,
  },
  maxModelLen: {
    flag: '--max-model-len <tokens>',
    kind: 'tokens',
    commands: [...runPlan, 'sim'],
    configFile: true,
    result: 'target.maxModelLen',
    about: { sim: "override the profile's max model length" },
    description: 'max model length (overrides discovery; needed offline)',
  },
  kvCapacity: {
    flag: '--kv-capacity <tokens>',
    kind: 'tokens',
    commands: ['run', 'plan', 'sim', 'fit', 'predict', 'sweep'],
    kindFor: { predict: 'capacity' },
    configFile: true,
    result: 'target.kvCapacityTokens',
    about: {
      sim: "KV cache capacity in tokens (overrides the profile's)",
      fit: 'the KV capacity in tokens, where the results cannot pin it',
      predict: 'KV capacity: tokens (3M), or a factor of the fitted one (1.5x)',
    },
    description: 'KV cache capacity in tokens (overrides discovery)',
  },
  ignoreEos: {
    flag: '--no-ignore-eos',
    kind: 'bool',
    defaultValue: true,
    commands: RUN,
    configFile: true,
    result: 'config',
    description: 'let the engine stop at EOS (default: ask it to ignore EOS where supported)',
  },
  temperature: {
    flag: '--temperature <t>',
    kind: 'number',
    commands: RUN,
    configFile: true,
    result: 'sampling',
    wire: 'temperature',
    description: "sampling temperature (default: not sent, the model's own config applies)",
    min: 0,
  },
  topP: {
    flag: '--top-p <p>',
    kind: 'number',
    commands: RUN,
    configFile: true,
    result: 'sampling',
    wire: 'top_p',
    description: 'nucleus sampling (default: not sent)',
    min: 0,
  },
  topK: {
    flag: '--top-k <k>',
    kind: 'int',
    commands: RUN,
    configFile: true,
    result: 'sampling',
    wire: 'top_k',
    description: 'top-k sampling (default: not sent)',
    min: 0,
  },
  ports: {
    flag: '--ports <list>',
    kind: 'int-list',
    commands: ['quick'],
    computedDefault: { quick: '11434,8080,8000,30000,3000,1234' },
    description:
      'ports on 127.0.0.1 to look for a server on (Ollama, llama.cpp or TGI, vLLM, SGLang, TGI, LM Studio)',
    min: 1,
    max: 65535,
  },
  budget: {
    flag: '--budget <seconds>',
    kind: 'duration',
    defaultValue: 60,
    commands: ['quick'],
    description: 'about how long quick measures the server (the plan is sized to it from its own speed)',
    min: 1,
  },
  seed: {
    flag: '--seed <n>',
    kind: 'int',
    defaultValue: 1,
    commands: ['run', 'sim', 'sweep'],
    configFile: true,
    result: 'config',
    about: { sim: 'seed for early stops, speculative chunks and faults' },
    description: 'seed of the prompt text generator',
    min: 0,
  },
  workers: {
    flag: '--workers <n>',
    kind: 'int',
    commands: RUN,
    configFile: true,
    result: 'config',
    description:
      'run the slots of each decode cell on N worker threads (one clock, one merged result; docs/performance.md); 1, the default, keeps them on the main thread',
    min: 1,
  },
  agents: {
    flag: '--agents <k>',
    kind: 'int',
    commands: AGENTS,
    configFile: true,
    result: 'config',
    description:
      'spread each decode cell over K agent processes or machines, agent 0 coordinating (docs/distributed.md); 1, the default, is one client',
    min: 1,
    max: 4096,
  },
  agentIndex: {
    flag: '--agent-index <i>',
    kind: 'int',
    commands: AGENTS,
    computedDefault: { run: 'JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID, else 0' },
    description: 'this agent of --agents K: 0 coordinates, 1..K-1 drive their share of the slots',
    min: 0,
  },
  coordinator: {
    flag: '--coordinator <url>',
    kind: 'url',
    commands: AGENTS,
    configFile: true,
    description:
      "agent 0's address, e.g. http://bench-0.bench:7070 (agent 0 listens on its port; --local: 127.0.0.1, a free port)",
  },
  local: {
    flag: '--local',
    kind: 'bool',
    commands: AGENTS,
    description: 'with --agents K: start agents 1..K-1 as processes on this machine (same protocol)',
  },
  agentTimeout: {
    flag: '--agent-timeout <seconds>',
    kind: 'duration',
    defaultValue: 10,
    commands: AGENTS,
    configFile: true,
    description: 'an agent or coordinator silent this long is lost (an agent lost mid-cell fails that cell)',
    min: 0.1,
  },
  agentWait: {
    flag: '--agent-wait <seconds>',
    kind: 'duration',
    defaultValue: 600,
    commands: AGENTS,
    configFile: true,
    description:
      'the first decode cell waits this long for every agent to join; an agent waits this long for the coordinator',
    min: 0,
  },
  agentTokenFile: {
    flag: '--agent-token-file <path>',
    kind: 'string',
    commands: AGENTS,
    description:
      "file holding the run's token that agents show the coordinator (or env LLM_BENCH_AGENT_TOKEN); never read from --config",
  },
  httpClient: {
    flag: '--http-client <client>',
    kind: 'string',
    choices: ['lean', 'undici'],
    defaultValue: 'lean',
    commands: RUN,
    configFile: true,
    result: 'config',
    description:
      'streaming HTTP client for http:// servers: lean (ours, cheapest per token) or undici; https:// uses undici',
  },
  verifyCapacity: {
    flag: '--verify-capacity',
    kind: 'bool',
    defaultValue: false,
    commands: runPlan,
    configFile: true,
    result: 'config',
    description:
      'measure the first Over capacity cell of each context anyway and report whether the rule held ' +
      '(done without this flag when the capacity is only a lower bound)',
  },
  slo: {
    flag: '--slo <level>',
    kind: 'slo',
    commands: ['run', 'report', 'compare', 'serve', 'sweep', 'quick', 'share'],
    configFile: true,
    result: 'config',
    computedDefault: {
      quick: 'chat: ttft=2s,tok/s=20,share=90%',
      run: 'chat: ttft=2s,tok/s=20,share=90%',
      sweep: 'chat: ttft=2s,tok/s=20,share=90%',
      report: "the result's, else chat",
      compare: "each result's, else chat",
      serve: "each result's, else chat",
      share: "the result's, else chat",
    },
    about: {
      report:
        'judge the result by this service level instead of its own (no re-run: docs/method.md "Service level")',
      sweep:
        'the service level each configuration is judged by: the report ranks by the users it serves at once under it, then by total tok/s (docs/sweep.md)',
    },
    description:
      'the service level the answer judges by, e.g. ttft=2s,tok/s=20,share=90% (any of the three; docs/method.md "Service level")',
  },
  out: {
    flag: '--out <dir>',
    kind: 'string',
    defaultValue: 'results',
    computedDefault: { predict: 'predicted-<twin name>' },
    about: {
      predict: 'write result.json here',
      sweep: 'results folder; a sweep writes <out>/<runId>/sweep.json and a folder per configuration',
    },
    commands: ['run', 'demo', 'predict', 'sweep', 'quick'],
    configFile: true,
    description: 'results folder; each run writes <out>/<runId>/result.json',
  },
  runId: {
    flag: '--run-id <id>',
    kind: 'string',
    commands: RUN,
    configFile: true,
    result: 'runId',
    about: { sweep: "the sweep's id and folder name (default: sweep- with the date and time)" },
    description: 'run id (default: date and time plus a random suffix)',
  },
  title: {
    flag: '--title <text>',
    kind: 'string',
    commands: RUN,
    configFile: true,
    result: 'title',
    about: { sweep: "the sweep report's title; each run's is this and its configuration" },
    description: 'report title (default: model on hardware)',
  },
  launchCommand: {
    flag: '--launch-command <cmd>',
    kind: 'string',
    commands: ['run', 'probe'],
    configFile: true,
    result: 'launchCommand',
    description: 'the server launch command, for the report (secrets are redacted)',
  },
  revision: {
    flag: '--revision <rev>',
    kind: 'string',
    commands: RUN,
    configFile: true,
    result: 'target.revision',
    description: 'model revision, for the report',
  },
  quantization: {
    flag: '--quantization <q>',
    kind: 'string',
    commands: META,
    configFile: true,
    result: 'engine.quantization',
    description: 'quantization, for the report (e.g. FP8)',
  },
  engineVersion: {
    flag: '--engine-version <v>',
    kind: 'string',
    commands: META,
    configFile: true,
    result: 'engine.version',
    description: 'engine version when the server does not report it (or to correct it)',
  },
  engineCommit: {
    flag: '--engine-commit <sha>',
    kind: 'string',
    commands: META,
    configFile: true,
    result: 'engine.commit',
    description: 'engine commit, for the report',
  },
  backend: {
    flag: '--backend <b>',
    kind: 'string',
    commands: META,
    configFile: true,
    result: 'engine.backend',
    description: 'engine backend, for the report (e.g. cuda, rocm)',
  },
  build: {
    flag: '--build <b>',
    kind: 'string',
    commands: META,
    configFile: true,
    result: 'engine.build',
    description: 'engine build, for the report (e.g. cuda-13.2)',
  },
  repository: {
    flag: '--repository <r>',
    kind: 'string',
    commands: META,
    configFile: true,
    result: 'engine.repository',
    description: 'engine repository, for the report',
  },
  gpuName: {
    flag: '--gpu-name <name>',
    kind: 'string',
    commands: META,
    configFile: true,
    result: 'hardware.gpuName',
    description: 'GPU model (wins over discovery; needed for servers on other hosts)',
  },
  gpuCount: {
    flag: '--gpu-count <n>',
    kind: 'int',
    commands: META,
    configFile: true,
    result: 'hardware.gpuCount',
    description: 'GPU count (wins over discovery)',
    min: 1,
  },
  gpuMemoryGb: {
    flag: '--gpu-memory-gb <gb>',
    kind: 'number',
    commands: META,
    configFile: true,
    result: 'hardware.gpuMemoryGb',
    description: 'memory of each GPU in GB',
    min: 0.001,
  },
  timeout: {
    flag: '--timeout <seconds>',
    kind: 'duration',
    defaultValue: 5,
    commands: ['probe'],
    description: 'per-request timeout',
    min: 0.001,
  },
  quiet: {
    flag: '--quiet',
    kind: 'bool',
    commands: ['run', 'demo', 'sweep'],
    configFile: true,
    description: 'print only errors and the result path',
  },
  json: {
    flag: '--json',
    kind: 'bool',
    commands: ['plan', 'probe'],
    about: { probe: 'print the probe as JSON' },
    description: 'print the plan as JSON',
  },
  forTwin: {
    flag: '--for-twin',
    kind: 'bool',
    commands: ['plan'],
    description: 'print the few short runs that pin a twin of the server, and the fit (docs/twin.md)',
  },
  twin: {
    flag: '--twin <file>',
    kind: 'string',
    commands: ['predict'],
    requiredFor: ['predict'],
    description: 'the twin profile written by fit, or a folder holding only that .yaml',
  },
  cells: {
    flag: '--cells <list>',
    kind: 'cell-list',
    commands: ['fit'],
    description: 'fit only these decode cells, e.g. 8Kx1,8Kx16,1019Kx2',
  },
  prefill: {
    flag: '--prefill <list>',
    kind: 'tokens-list',
    commands: ['fit'],
    description: 'fit only these prefill points, e.g. 8K,128K,1024K',
  },
  twinCells: {
    flag: '--twin-cells',
    kind: 'bool',
    commands: ['fit'],
    description:
      'fit only the cells and prefill points `plan --for-twin` picks (judge a twin against the rest)',
  },
  contextSlope: {
    flag: '--context-slope <ms>',
    kind: 'number',
    commands: ['fit'],
    description: 'decode ms per million context tokens in the batch, where one context was measured',
    min: 0,
  },
  name: {
    flag: '--name <name>',
    kind: 'string',
    commands: ['fit', 'deploy'],
    defaultFor: { deploy: 'llm-inference-bench' },
    about: { deploy: "the job's name (Kubernetes: the Job and its headless Service; a DNS label)" },
    description: 'profile name (default twin-<model>)',
  },
  namespace: {
    flag: '--namespace <ns>',
    kind: 'string',
    commands: ['deploy'],
    description: "k8s: the namespace of the Job, the Service and the Secret (default: kubectl's)",
  },
  image: {
    flag: '--image <image>',
    kind: 'string',
    defaultValue: 'node:22-slim',
    commands: ['deploy'],
    description: 'k8s: the container image every agent runs (with --tool-command)',
  },
  toolCommand: {
    flag: '--tool-command <cmd>',
    kind: 'string',
    commands: ['deploy'],
    computedDefault: { deploy: 'npx --yes llm-inference-bench@<this version>' },
    description: 'how each agent starts the tool (an image with it installed: llm-inference-bench)',
  },
  secret: {
    flag: '--secret <name>',
    kind: 'string',
    commands: ['deploy'],
    computedDefault: { deploy: 'the --name' },
    description: 'k8s: the Secret holding run-token (and api-key); created by you, only referenced',
  },
  cpus: {
    flag: '--cpus <n>',
    kind: 'int',
    defaultValue: 2,
    commands: ['deploy'],
    description: 'cores per agent (requested and limited); a client core drives about 50K tok/s',
    min: 1,
  },
  keepResults: {
    flag: '--keep-results <seconds>',
    kind: 'duration',
    commands: ['deploy'],
    computedDefault: { deploy: '3600, 0 with --results-pvc' },
    description:
      'k8s: agent 0 waits this long after a complete run for its results to be copied (it prints the kubectl cp command)',
    min: 0,
  },
  resultsPvc: {
    flag: '--results-pvc <claim>',
    kind: 'string',
    commands: ['deploy'],
    description:
      'k8s: mount this PersistentVolumeClaim (ReadWriteMany: every pod mounts it) at /results: the result stays on it, and the Job completes with the run',
  },
  partition: {
    flag: '--partition <name>',
    kind: 'string',
    commands: ['deploy'],
    description: 'slurm: the partition (#SBATCH --partition)',
  },
  format: {
    flag: '--format <format>',
    kind: 'string',
    choicesFor: { report: REPORT_FORMATS, predict: REPORT_FORMATS, compare: COMPARE_FORMATS },
    defaultValue: 'txt',
    commands: ['report', 'compare', 'predict'],
    about: { predict: 'print the prediction in this format' },
    description: 'output format',
  },
  output: {
    flag: '-o, --output <file>',
    kind: 'string',
    commands: ['report', 'compare', 'import', 'fit', 'share'],
    requiredFor: ['fit'],
    about: {
      report: 'write to this file (HTML defaults to report.html beside the result)',
      import: 'write the result here (default: stdout)',
      fit: 'write the twin here (a sim profile, e.g. twin.yaml)',
    },
    description: 'write to this file instead of stdout',
  },
  width: {
    flag: '--width <columns>',
    kind: 'int',
    commands: ['report', 'compare'],
    description: 'terminal width for txt (default: the terminal, else 80)',
    min: 40,
  },
  failOn: {
    flag: '--fail-on <percent>',
    kind: 'percent',
    commands: ['compare'],
    description:
      'exit with code 12 when any run is significantly slower than A by more than this (e.g. 5%; 0%: any significant slowdown) in any cell or prefill point',
  },
  verbose: {
    flag: '--verbose',
    kind: 'bool',
    commands: ['compare'],
    description: "list every cell's and prefill point's verdict in the terminal (md and html always do)",
  },
  config: {
    flag: '--config <file>',
    kind: 'string',
    commands: runPlan,
    description: 'YAML config file (keys as the flags, camelCase)',
  },
  resume: {
    flag: '--resume [dir]',
    kind: 'string',
    commands: runPlan, // plan --resume: what is left of a run
    about: {
      plan: 'plan what is left of an interrupted run: its folder, or --out pointing at it',
      sweep:
        'continue an interrupted sweep: its folder (finished configurations are skipped, a run in progress goes on from its last cell)',
    },
    description: 'continue an interrupted run: its folder, or --out pointing at it',
  },
  serveCmd: {
    flag: '--serve-cmd <cmd>',
    kind: 'string',
    commands: SWEEP,
    configFile: true,
    description:
      'the server launch command, run by /bin/sh: {port} is the port the sweep picks, {name} a value of --serve-params, {api_key} the API key; flags the command does not name are appended (docs/sweep.md)',
  },
  serveParams: {
    flag: '--serve-params <file>',
    kind: 'string',
    commands: SWEEP,
    configFile: true,
    description:
      'YAML or JSON file of server configurations: a list, named ones, or one mapping; list values are expanded as a product; env: sets environment variables',
  },
  benchParams: {
    flag: '--bench-params <file>',
    kind: 'string',
    commands: SWEEP,
    configFile: true,
    description:
      'YAML or JSON file of run settings to measure against each server configuration (keys as in --config), expanded as --serve-params',
  },
  linkVars: {
    flag: '--link-vars <links>',
    kind: 'string',
    commands: SWEEP,
    configFile: true,
    description:
      'server flags that set run settings, e.g. "max_num_seqs=concurrency" (vLLM) or "np=concurrency,c/np=max-model-len" (llama.cpp); more in docs/sweep.md',
  },
  serverReadyTimeout: {
    flag: '--server-ready-timeout <seconds>',
    kind: 'duration',
    defaultValue: 300,
    commands: SWEEP,
    configFile: true,
    description: 'longest wait for a started server to answer /health or /v1/models',
    min: 0.1,
  },
  serverStopTimeout: {
    flag: '--server-stop-timeout <seconds>',
    kind: 'duration',
    defaultValue: 30,
    commands: SWEEP,
    configFile: true,
    description: "grace after SIGTERM to a server's process group before SIGKILL",
    min: 0,
  },
  dryRun: {
    flag: '--dry-run',
    kind: 'bool',
    commands: SWEEP,
    description: 'print every server command and the time estimate of each configuration, start nothing',
  },
  apiKey: {
    flag: '--api-key <key>',
    kind: 'string',
    commands: ['run', 'plan', 'probe', 'sim', 'sweep', 'quick'],
    about: { sim: 'require this API key where the flavor checks keys' },
    description:
      'API key (or env OPENAI_API_KEY / LLM_BENCH_API_KEY, or --api-key-file); never read from --config',
  },
  apiKeyFile: {
    flag: '--api-key-file <path>',
    kind: 'string',
    commands: TARGET,
    description: 'file holding the API key',
  },
  profile: {
    flag: '--profile <name|file>',
    kind: 'string',
    defaultValue: 'tiny',
    commands: ['sim'],
    description: 'profile name in profiles/ or a .yaml/.json file',
  },
  flavor: {
    flag: '--flavor <engine>',
    kind: 'string',
    choices: FLAVORS,
    commands: ['sim'],
    description: "protocol flavor (default: the profile's)",
  },
  faults: {
    flag: '--faults <spec>',
    kind: 'string',
    commands: ['sim'],
    description: 'inject faults, e.g. "cut:0.05,500:count=3,stall:rate=0.01:ms=2000" (docs/sim.md)',
  },
  stalls: {
    flag: '--stalls <count:ms>',
    kind: 'string',
    commands: ['sim'],
    description: 'stall that many streams for ms each (fault stall:count=N:ms=MS)',
  },
  closeConnections: {
    flag: '--close-connections <spec>',
    kind: 'string',
    commands: ['sim'],
    description:
      'N[:MS]: close connections after N responses unannounced, MS after the last chunk or (no MS) as the next request comes',
  },
  truthLog: {
    flag: '--truth-log <file>',
    kind: 'string',
    commands: ['sim'],
    description: 'append the ground truth of every request as JSON lines',
  },
  maxNumSeqs: {
    flag: '--max-num-seqs <n>',
    kind: 'int',
    commands: ['sim', 'fit', 'predict'],
    about: { fit: 'the max running sequences, where no cell queued', predict: 'max running sequences' },
    description: "override the profile's maxNumSeqs",
    min: 1,
  },
  timeScale: {
    flag: '--time-scale <x>',
    kind: 'number',
    commands: ['sim', ...runPlan],
    configFile: true,
    result: 'config.load.timeScale',
    computedDefault: { run: '1', plan: '1', sweep: '1' },
    about: {
      run: 'replay --trace x times faster (2 halves every gap)',
      plan: 'replay --trace x times faster (2 halves every gap)',
      sweep: 'replay --trace x times faster (2 halves every gap)',
    },
    description: 'run the profile x times faster than real hardware',
    min: 0.000001,
  },
  metrics: {
    flag: '--no-metrics',
    kind: 'bool',
    defaultValue: true,
    commands: ['sim'],
    description: 'serve no /metrics (404), to test queue detection without metrics',
  },
  kvUnified: {
    flag: '--kv-unified',
    kind: 'bool',
    commands: ['sim'],
    description: 'llama.cpp flavor: all slots share one KV pool of --kv-capacity tokens',
  },
  host: {
    flag: '--host <address>',
    kind: 'string',
    defaultValue: '127.0.0.1',
    commands: ['sim', 'serve'],
    description: 'address to listen on',
  },
  port: {
    flag: '--port <n>',
    kind: 'int',
    defaultFor: { sim: 0, serve: 8321, deploy: 7070 },
    commands: ['sim', 'serve', 'deploy'],
    about: { deploy: "where agent 0 listens for the others (the Service's port)" },
    description: 'port to listen on (0: a free one)',
    min: 0,
    max: 65535,
  },
  allowRemote: {
    flag: '--allow-remote',
    kind: 'bool',
    commands: ['serve'],
    description: 'allow listening on a non-loopback address (anyone who can reach it reads the results)',
  },
  indexCache: {
    flag: '--index-cache <file>',
    kind: 'string',
    commands: ['serve'],
    description: 'keep the run index in this JSON file so a restart skips unchanged results',
  },
} as const satisfies Record<string, OptionSpec>;

type Table = typeof OPTION_TABLE;
export type OptionKey = keyof Table;

interface KindValues {
  string: string;
  url: string;
  int: number;
  number: number;
  duration: number;
  bool: boolean;
  tokens: number;
  'tokens-list': number[];
  'int-list': number[];
  percent: number;
  'cell-list': string[]; // "8192x16": context tokens x concurrency
  capacity: { tokens: number } | { factor: number };
  slo: ServiceLevel;
  'rate-list': number[];
  workload: WorkloadSpec;
}
type KindOf<S, C extends CommandName> = S extends { kindFor: Record<C, infer K extends OptionKind> }
  ? K
  : S extends { kind: infer K extends OptionKind }
    ? K
    : never;
type ValueOf<S, C extends CommandName> = S extends { choicesFor: Record<C, readonly (infer V)[]> }
  ? V
  : S extends { choices: readonly (infer V)[] }
    ? V
    : KindValues[KindOf<S, C>];
// `plan` takes every flag `run` takes, so a user can swap the verb (commandsOf below).
type CommandsOf<K extends OptionKey> =
  Table[K]['commands'][number] | ('run' extends Table[K]['commands'][number] ? 'plan' : never);
type KeysOf<C extends CommandName> = {
  [K in OptionKey]: C extends CommandsOf<K> ? K : never;
}[OptionKey];
// The options the table gives a default for this command (defaultOf below at run time).
export type DefaultedKey<C extends CommandName> = {
  [K in KeysOf<C>]: Table[K] extends { computedDefault: Record<C, unknown> }
    ? never
    : Table[K] extends { defaultValue: unknown }
      ? K
      : Table[K] extends { defaultFor: Record<C, unknown> }
        ? K
        : never;
}[KeysOf<C>];
type RequiredKey<C extends CommandName> = {
  [K in OptionKey]: Table[K] extends { requiredFor: readonly (infer R)[] }
    ? C extends R
      ? K
      : never
    : never;
}[OptionKey];
type Defaulted<C extends CommandName> = DefaultedKey<C> | RequiredKey<C>;

// The options a command receives, typed by the table: an option with a default, or required, is always there.
export type Options<C extends CommandName> = {
  [K in KeysOf<C> & Defaulted<C>]: ValueOf<Table[K], C>;
} & { [K in Exclude<KeysOf<C>, Defaulted<C>>]?: ValueOf<Table[K], C> };

// The options stored in the result's config section under their own names.
export type ConfigKey = {
  [K in OptionKey]: Table[K] extends { result: 'config' } ? K : never;
}[OptionKey];

export interface OptionRow extends OptionSpec {
  key: OptionKey; // camelCase: YAML config key, commander attribute and config-section field
}

// Every run flag is a plan flag too, so the verb can be swapped: those whose own `commands` name 'plan' shape the plan
// or its estimate; the others are accepted, grouped apart in plan --help and named by src/cli/plan.ts in one line as
// not changing it.
export const shapesPlan = (o: Pick<OptionSpec, 'commands'>): boolean => o.commands.includes('plan');
const commandsOf = (o: OptionSpec): readonly CommandName[] =>
  o.commands.includes('run') && !o.commands.includes('plan') ? [...o.commands, 'plan'] : o.commands;

export const OPTIONS: readonly OptionRow[] = (Object.keys(OPTION_TABLE) as OptionKey[]).map((key) => {
  const spec = OPTION_TABLE[key] as OptionSpec;
  return { key, ...spec, commands: commandsOf(spec) };
});

// A command's options, each as that command reads it (its own kind and choices).
export const optionsFor = (cmd: CommandName): OptionRow[] =>
  OPTIONS.filter((o) => o.commands.includes(cmd)).map((o) => {
    const kind = o.kindFor?.[cmd];
    const choices = o.choicesFor?.[cmd];
    return { ...o, ...(kind ? { kind } : {}), ...(choices ? { choices } : {}) };
  });

export const defaultOf = (o: OptionSpec, cmd: CommandName): string | number | boolean | undefined =>
  o.computedDefault?.[cmd] !== undefined ? undefined : (o.defaultFor?.[cmd] ?? o.defaultValue);

// A command's options as a program passes them (the table's defaults optional) -> with every default filled in,
// as the CLI's resolveOptions fills them.
export type WithoutDefaults<C extends CommandName, T extends Partial<Options<C>>> = Omit<T, DefaultedKey<C>> &
  Partial<Pick<T, DefaultedKey<C> & keyof T>>;
export function withDefaults<C extends CommandName, T extends Partial<Options<C>>>(
  cmd: C,
  given: WithoutDefaults<C, T>,
): T {
  const out: Record<string, unknown> = { ...given };
  for (const o of optionsFor(cmd)) {
    const d = defaultOf(o, cmd);
    if (out[o.key] === undefined && d !== undefined) out[o.key] = d;
  }
  return out as T; // every key DefaultedKey<C> names has its default now
}

export const descriptionOf = (o: OptionSpec, cmd: CommandName): string => o.about?.[cmd] ?? o.description;
