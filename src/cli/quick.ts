import type { Command } from 'commander';
import { createInterface } from 'node:readline/promises';
import { finishedRunAnalysis } from './run-analysis.js';
import { kvLayoutOf, type KvLayout } from '../engines/index.js';
import { normalizeBaseUrl } from '../bench/settings.js';
import { streamRequest } from '../client/stream.js';
import { withOptions } from '../config/resolve.js';
import type { Options } from '../config/options.js';
import { BenchError, isBenchError } from '../errors.js';
import { cliCommand } from '../invocation.js';
import { chooseProgress } from '../progress/index.js';
import { buildPromptText } from '../prompts/index.js';
import { quickAnswerLines, quickFoundLines, quickKeyedLines, quickPlanLines } from '../quick/lines.js';
import { sizeQuickPlan, type QuickSizing, type ServerSpeed } from '../quick/size.js';
import { buildRequestBody } from '../target/request-body.js';
import { probeTarget } from '../target/probe.js';
import type { TargetInfo } from '../target/types.js';
import { resolveApiKey } from './api-key.js';
import type { CliIo } from './io.js';
import { runWithSignals } from './run.js';

// `quick`: the servers on this machine's usual ports, one of them measured for about a minute, and the answer in
// ten lines (docs/quick.md). The run is a normal one (result.json, reports) that report, compare, serve and fit take.

export const QUICK_PORTS = [11434, 8080, 8000, 30000, 3000, 1234]; // Ollama, llama.cpp/TGI, vLLM, SGLang, TGI, LM Studio

interface Found {
  baseUrl: string;
  info: TargetInfo;
}

// A server that refused the probe for its key (401/403): found, and said to need one, never skipped.
interface Keyed {
  baseUrl: string;
  refused: BenchError;
}

type Candidate = Found | Keyed;
const isKeyed = (c: Candidate): c is Keyed => 'refused' in c;

// Every candidate probed at once, briefly: a port where nothing listens answers at once, one that hangs is left.
async function findServers(
  urls: readonly string[],
  apiKey: string | undefined,
  model?: string,
): Promise<Candidate[]> {
  const probes = await Promise.allSettled(
    urls.map(async (baseUrl) => ({
      baseUrl,
      info: await probeTarget({
        baseUrl,
        ...(apiKey !== undefined ? { apiKey } : {}),
        ...(model !== undefined ? { model } : {}),
        fetchTimeoutMs: 3000,
        detectLocalHardware: false,
      }),
    })),
  );
  return probes.flatMap((p, i): Candidate[] => {
    if (p.status === 'fulfilled') return [p.value];
    const e: unknown = p.reason;
    return isBenchError(e) && e.code === 'AUTH_FAILED' ? [{ baseUrl: urls[i]!, refused: e }] : [];
  });
}

// The probe's own refusal (rc 4, as probe and run say it), naming the server and the quick command that measures it.
function keyError(k: Keyed, apiKey: string | undefined): BenchError {
  const pass = apiKey ? 'Check the key given' : 'Pass its key';
  return new BenchError('AUTH_FAILED', `${k.baseUrl}: ${k.refused.message}`, {
    hint: `${pass}: \`${cliCommand('quick', '--base-url', k.baseUrl, '--api-key', 'KEY')}\` (or --api-key-file, OPENAI_API_KEY).`,
  });
}

const candidateLines = (c: Candidate, apiKey: string | undefined, prefix: string) =>
  isKeyed(c)
    ? quickKeyedLines(c.baseUrl, apiKey !== undefined, prefix)
    : quickFoundLines(c.info, c.baseUrl, prefix);

// One short request: one user's decode rate and a first token for a ~1K-token prompt, to size the plan.
async function measureSpeed(f: Found, apiKey: string | undefined): Promise<ServerSpeed> {
  const prompt = buildPromptText({ runId: 'quick-speed', contextTokens: 1024, slot: 0, seed: 1 }, 4);
  const r = await streamRequest({
    baseUrl: f.baseUrl,
    ...(apiKey !== undefined ? { apiKey } : {}),
    api: 'chat',
    body: buildRequestBody(f.info, { api: 'chat', prompt, maxOutput: 64, ignoreEos: true }),
  });
  if (!r.ok || r.firstTokenAtMs === undefined)
    throw new BenchError(
      'TARGET_ERROR',
      `the server at ${f.baseUrl} did not answer a short request (${r.error?.message ?? 'no token'}).`,
    );
  const first = r.chunks[0]?.[0] ?? 0;
  const last = r.chunks[r.chunks.length - 1]?.[0] ?? first;
  const tokens = Math.max(1, (r.outputTokens ?? r.chunks.length) - (r.chunks[0]?.[1] ?? 1));
  return {
    tokensPerS: last > first ? (tokens * 1000) / (last - first) : 50,
    ttftMs: r.firstTokenAtMs - r.sentAtMs,
    promptTokens: r.promptTokens ?? 1024,
  };
}

async function ask(found: readonly Candidate[], apiKey: string | undefined, io: CliIo): Promise<Candidate> {
  io.stdout.write(found.flatMap((f, i) => candidateLines(f, apiKey, `  ${i + 1}. `)).join('\n') + '\n');
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    for (;;) {
      const a = Number((await rl.question(`Which one? [1-${found.length}] `)).trim());
      if (Number.isInteger(a) && a >= 1 && a <= found.length) return found[a - 1]!;
    }
  } finally {
    rl.close();
  }
}

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('quick')
    .description(
      'find an LLM server on this machine, measure it for about a minute, and say how many users it takes and why not more',
    );
  const resolve = withOptions(cmd, 'quick');
  cmd.action(async (flags: Record<string, unknown>) => quick(io, resolve(flags).options));
}

// The server found (or named), measured for about a minute on a plan sized from its speed, and the answer.
async function quick(io: CliIo, o: Options<'quick'>): Promise<void> {
  const apiKey = resolveApiKey({ apiKey: o.apiKey, apiKeyFile: o.apiKeyFile, env: io.env });
  const pick = await chooseServer(io, o, apiKey);
  io.stdout.write(quickFoundLines(pick.info, pick.baseUrl, 'Found ').join('\n') + '\n');
  const plan = sizeQuickPlan(await measureSpeed(pick, apiKey), sizingOf(o, pick.info));
  io.stdout.write(quickPlanLines(plan).join('\n') + '\n');
  const out = await runWithSignals(
    {
      baseUrl: pick.baseUrl,
      model: pick.info.model,
      ...(apiKey !== undefined ? { apiKey } : {}),
      contexts: plan.contexts,
      prefillContexts: plan.contexts,
      concurrency: plan.concurrency,
      maxOutput: plan.maxOutput,
      duration: plan.duration,
      repeats: plan.repeats,
      prefillRepeats: plan.prefillRepeats,
      settleTimeout: 10,
      out: o.out,
      title: `quick · ${pick.info.model}`,
      ...(o.slo ? { slo: o.slo } : {}),
    },
    chooseProgress({ stream: io.stderr }),
    io,
  );
  const report = out.reports.find((r) => r.endsWith('.html')) ?? out.resultPath;
  const a = finishedRunAnalysis(out.result); // the one the reports beside the run were written from
  io.stdout.write(quickAnswerLines(a, { report, result: out.dir }, a.whatIf, plan).join('\n') + '\n');
}

// The one server quick measures: --base-url's, the only one answering, or the one picked at a terminal; none, a
// server refusing the key, or several without a terminal to ask at is an error that says what to do.
async function chooseServer(io: CliIo, o: Options<'quick'>, apiKey: string | undefined): Promise<Found> {
  const ports = o.ports ?? QUICK_PORTS;
  const urls = o.baseUrl ? [normalizeBaseUrl(o.baseUrl)] : ports.map((p) => `http://127.0.0.1:${p}/v1`);
  const found = await findServers(urls, apiKey, o.model);
  if (found.length === 0)
    throw new BenchError(
      'NO_SERVER',
      o.baseUrl
        ? `no LLM server answered at ${urls[0]}, so there is nothing to measure.`
        : `no LLM server answered on this machine (ports ${ports.join(', ')}), so there is nothing to measure.`,
      {
        hint: `Start one, or say where it is: \`${cliCommand('quick', '--base-url', 'http://HOST:PORT/v1')}\`.`,
      },
    );
  let chosen = found[0]!;
  if (found.length > 1) {
    if (process.stdin.isTTY && io.stdout.isTTY) chosen = await ask(found, apiKey, io);
    else {
      io.stdout.write(found.flatMap((f) => candidateLines(f, apiKey, '  ')).join('\n') + '\n');
      throw new BenchError(
        'SEVERAL_SERVERS',
        `${found.length} servers answered (listed above); quick measures one.`,
        {
          hint: `Pick one: \`${cliCommand('quick', '--base-url', (found.find((f) => !isKeyed(f)) ?? found[0]!).baseUrl)}\`.`,
        },
      );
    }
  }
  if (isKeyed(chosen)) throw keyError(chosen, apiKey);
  return chosen;
}

// What the flags fix (the flags quick's hints name) stays; the rest is sized from the server's speed.
function sizingOf(o: Options<'quick'>, info: TargetInfo): QuickSizing {
  return {
    budgetS: o.budget,
    engine: info.engine.name,
    ...(info.maxModelLen !== undefined ? { maxModelLen: info.maxModelLen } : {}),
    ...(info.kvCapacityTokens !== undefined
      ? { kvCapacityTokens: info.kvCapacityTokens, kvCapacityBound: info.kvCapacityBound ?? 'exact' }
      : {}),
    ...layoutOf(info),
    ...(o.concurrency ? { concurrency: o.concurrency } : {}),
    ...(o.maxOutput !== undefined ? { maxOutput: o.maxOutput } : {}),
    ...(o.duration !== undefined ? { duration: o.duration } : {}),
    repeats: o.repeats,
  };
}

// How the server lays its KV out, where known: the plan runs what split slots or Ollama's contexts would queue.
function layoutOf(info: TargetInfo): { kvLayout?: KvLayout } {
  const kvLayout = kvLayoutOf(info.engine.name, info.kvLayout);
  return kvLayout ? { kvLayout } : {};
}
