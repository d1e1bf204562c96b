import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { toRunSettings } from '../../src/cli/run-settings.js';
import { addOptions, resolveOptions } from '../../src/config/index.js';
import { probeFacts } from '../../src/target/probe.js';

function settingsOf(argv: string[]) {
  const program = new Command().exitOverride();
  const cmd = addOptions(program.command('run'), 'run');
  let out: ReturnType<typeof toRunSettings> | undefined;
  cmd.action((opts: Record<string, unknown>) => {
    out = toRunSettings(
      resolveOptions('run', opts, (k) => cmd.getOptionValueSource(k) === 'cli').options,
      undefined,
    );
  });
  program.parse(['run', ...argv], { from: 'user' });
  return out!;
}

describe('run metadata options (engine, hardware, launch command)', () => {
  it('reads them from flags and from the config file, flags winning', () => {
    const cfg = join(mkdtempSync(join(tmpdir(), 'lib-meta-')), 'bench.yaml');
    writeFileSync(
      cfg,
      [
        'engineVersion: 0.30.1',
        'engineCommit: 2617fe9',
        'backend: cuda',
        'build: cuda-13.2',
        'repository: github.com/vllm-project/vllm',
        'quantization: FP8',
        'gpuName: RTX PRO 6000',
        'gpuCount: 8',
        'gpuMemoryGb: 96',
        'launchCommand: vllm serve glm --tensor-parallel-size 8',
      ].join('\n'),
    );
    const s = settingsOf(['--config', cfg, '--backend', 'rocm', '--gpu-count', '4']);
    expect(probeFacts(s)).toEqual({
      engineFlags: {
        engineVersion: '0.30.1',
        engineCommit: '2617fe9',
        quantization: 'FP8',
        backend: 'rocm',
        build: 'cuda-13.2',
        repository: 'github.com/vllm-project/vllm',
      },
      hardware: { gpuName: 'RTX PRO 6000', gpuCount: 4, gpuMemoryGb: 96 },
    });
    expect(s.launchCommand).toBe('vllm serve glm --tensor-parallel-size 8');
  });

  it('leaves them out when none is given, so discovery alone decides', () => {
    const s = settingsOf(['--base-url', 'http://127.0.0.1:1/v1']);
    const { engineFlags, hardware } = probeFacts(s);
    expect(Object.values({ ...engineFlags, ...hardware }).filter((v) => v !== undefined)).toEqual([]);
    expect(s.hardware).toBeUndefined();
    expect(s.launchCommand).toBeUndefined();
  });
});
