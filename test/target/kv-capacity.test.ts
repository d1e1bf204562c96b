import { afterEach, describe, expect, it } from 'vitest';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { limitsFromLaunch, shellWords } from '../../src/engines/index.js';
import { formatProbe } from '../../src/target/probe-format.js';
import { probeTarget } from '../../src/target/probe.js';
import { runCliInProcess, unwrapped } from '../helpers/cli.js';

const noHw = { source: 'none' as const };
const lc = (cmd: string, nCtxTrain?: number) =>
  limitsFromLaunch('llamacpp', cmd, nCtxTrain ? { nCtxTrain } : {})?.kvTokens;

describe('KV capacity from a launch command', () => {
  it('llama-server: -c/--ctx-size, -np/--parallel and --kv-unified with llama.cpp padding', () => {
    expect(lc('llama-server -m m.gguf -c 200000 -np 4')).toBe(200_704); // 4 x GGML_PAD(50048, 256)
    expect(lc('/opt/bin/llama-server -m m.gguf --ctx-size=8192 --parallel=3')).toBe(8448);
    expect(lc('llama-server -m m.gguf -c 65536 -np 4 --kv-unified')).toBe(65_536);
    expect(lc('llama-server -m m.gguf -c 65536')).toBe(65_536); // no -np: 4 slots sharing the pool
    expect(lc('llama-server -m m.gguf -np 4', 32_768)).toBe(32_768); // -c 0: the training context
    expect(lc('llama-server -m m.gguf -np 4')).toBeUndefined(); // -c 0 and no training context known
    expect(lc('node dist/cli.js sim --flavor llamacpp -c 4096')).toBeUndefined(); // not llama-server
    expect(limitsFromLaunch('llamacpp', 'llama-server -c 65536 -np 4 --kv-unified')?.source).toContain(
      '--kv-unified',
    );
  });

  it('vLLM, SGLang and TGI where a flag sizes the pool', () => {
    expect(
      limitsFromLaunch('vllm', 'vllm serve m --num-gpu-blocks-override 1000 --block-size 32')?.kvTokens,
    ).toBe(32_000);
    expect(limitsFromLaunch('vllm', 'vllm serve m --gpu-memory-utilization 0.9')).toBeUndefined();
    expect(limitsFromLaunch('vllm', 'vllm serve m --max-num-seqs 8')).toMatchObject({ seats: 8 });
    expect(limitsFromLaunch('vllm', 'vllm serve m --max-num-seqs 8')?.kvTokens).toBeUndefined();
    expect(
      limitsFromLaunch('sglang', 'python -m sglang.launch_server --model-path m --max-total-tokens 500000')
        ?.kvTokens,
    ).toBe(500_000);
    expect(
      limitsFromLaunch('tgi', 'text-generation-launcher --model-id m --max-batch-total-tokens 90000')
        ?.kvTokens,
    ).toBe(90_000);
  });

  it('Ollama: only what its command line states (its variables are often in the environment instead)', () => {
    expect(
      limitsFromLaunch('ollama', 'OLLAMA_NUM_PARALLEL=4 OLLAMA_CONTEXT_LENGTH=8192 ollama serve'),
    ).toMatchObject({ seats: 4, contextLimit: 8192, kvTokens: 32_768, layout: 'per-request' });
    expect(limitsFromLaunch('ollama', 'OLLAMA_NUM_PARALLEL=2 ollama serve')?.kvTokens).toBeUndefined();
    expect(limitsFromLaunch('ollama', '/usr/bin/ollama serve')).toBeUndefined(); // not its default of 1
  });

  it('shell words undo the quoting of a redacted /proc command line', () => {
    expect(shellWords(`llama-server -m '/models/my model.gguf' -a 'it'\\''s' -c 4096`)).toEqual([
      'llama-server',
      '-m',
      '/models/my model.gguf',
      '-a',
      "it's",
      '-c',
      '4096',
    ]);
  });
});

describe('KV capacity of the sim llama.cpp flavor: source and bound', () => {
  let sim: SimHandle | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('a unified pool of 65,536 with slots capped at 32,768 reads as a lower bound from the API, exact from the launch command', async () => {
    sim = await startSim({
      profile: 'tiny',
      flavor: 'llamacpp',
      overrides: { kvCapacityTokens: 65_536, maxNumSeqs: 4, maxModelLen: 32_768, kvUnified: true },
    });
    const api = await probeTarget({ baseUrl: sim.baseUrl, hardware: noHw });
    expect(api).toMatchObject({ kvCapacityTokens: 32_768, kvCapacityBound: 'lower-bound' });
    expect(formatProbe(api, sim.baseUrl)).toMatch(/32,768 tokens \(GET \/props.*a lower bound/);
    const launched = await probeTarget({
      baseUrl: sim.baseUrl,
      hardware: noHw,
      launchCommand: sim.launchCommand,
    });
    expect(launched).toMatchObject({ kvCapacityTokens: 65_536, kvCapacityBound: 'exact' });
    expect(launched.kvCapacitySource).toMatch(/^launch command -c 65536, --kv-unified/);
    expect(formatProbe(launched, sim.baseUrl)).not.toMatch(/lower bound/);
  });

  it('split -c 200000 -np 4 reads as 200,704 (inferred from the API, exact from the launch command)', async () => {
    sim = await startSim({
      profile: 'tiny',
      flavor: 'llamacpp',
      overrides: { kvCapacityTokens: 200_000, maxNumSeqs: 4, maxModelLen: 262_144 },
    });
    const api = await probeTarget({ baseUrl: sim.baseUrl, hardware: noHw });
    expect(api).toMatchObject({
      kvCapacityTokens: 200_704,
      kvCapacityBound: 'inferred',
      maxModelLen: 50_176,
    });
    const launched = await probeTarget({
      baseUrl: sim.baseUrl,
      hardware: noHw,
      launchCommand: sim.launchCommand,
    });
    expect(launched).toMatchObject({ kvCapacityTokens: 200_704, kvCapacityBound: 'exact' });
  });

  it('plan says where the capacity came from and that it is a lower bound', async () => {
    sim = await startSim({
      profile: 'tiny',
      flavor: 'llamacpp',
      overrides: { kvCapacityTokens: 65_536, maxNumSeqs: 4, maxModelLen: 32_768, kvUnified: true },
    });
    const r = await runCliInProcess([
      'plan',
      '--base-url',
      sim.baseUrl,
      '--contexts',
      '8K',
      '--concurrency',
      '1,4',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(unwrapped(r.stdout)).toMatch(
      /KV capacity 32768 \(GET \/props n_ctx .*, a lower bound \(the server may hold more\)\)/,
    );
    // 8K x 4 needs 4 x (8,192 + max output) > 32,768: over the bound, so planned as a check, not skipped.
    expect(r.stdout).toMatch(/^8K\s+run\s+check$/m);
    expect(r.stdout).toMatch(/check = over the capacity figure, measured to see what the server does/);
    const j = await runCliInProcess(['plan', '--base-url', sim.baseUrl, '--contexts', '8K', '--json']);
    expect(JSON.parse(j.stdout)).toMatchObject({ kvCapacityTokens: 32_768, kvCapacityBound: 'lower-bound' });
  });

  it("vLLM's own report stays the source and is exact", async () => {
    sim = await startSim({ profile: 'tiny' });
    const info = await probeTarget({
      baseUrl: sim.baseUrl,
      hardware: noHw,
      launchCommand: sim.launchCommand,
    });
    expect(info).toMatchObject({ kvCapacityTokens: 300_000, kvCapacityBound: 'exact' });
    expect(info.kvCapacitySource).toMatch(/^vllm:cache_config_info/);
  });
});
