import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Hardware } from '../results/schema.js';
import { execTool, readGpuPowerW } from './hardware.js';
import type { Exec } from './hardware.js';

// GPU board power while a window runs. nvidia-smi runs once in its own loop mode rather than being spawned
// per sample: a spawn costs the event loop milliseconds, and the client's timestamps share that loop.
export interface PowerMonitor {
  start(): void;
  latestW(): number | undefined;
  stop(): void;
}

export function createPowerMonitor(hw: Hardware, exec: Exec = execTool): PowerMonitor | undefined {
  if (hw.source === 'nvidia-smi') return nvidiaLoop(hw.gpuCount ?? 1);
  if (hw.source === 'rocm-smi') return polling(hw, exec, 1000);
  return undefined;
}

export function nvidiaLoop(gpuCount: number, command = 'nvidia-smi', loopMs = 500): PowerMonitor {
  let child: ChildProcess | undefined;
  let latest: number | undefined;
  let batch: number[] = [];
  let rest = '';
  return {
    start() {
      if (child) return;
      latest = undefined;
      child = spawn(
        command,
        ['--query-gpu=power.draw', '--format=csv,noheader,nounits', `--loop-ms=${loopMs}`],
        {
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      child.on('error', () => (child = undefined));
      child.stdout?.setEncoding('utf8').on('data', (d: string) => {
        const lines = (rest + d).split(/\r?\n/);
        rest = lines.pop() ?? '';
        for (const line of lines) {
          const w = Number(line.trim());
          if (!line.trim()) continue;
          batch.push(Number.isFinite(w) ? w : NaN);
          if (batch.length >= gpuCount) {
            const ok = batch.filter((x) => Number.isFinite(x));
            if (ok.length) latest = ok.reduce((a, b) => a + b, 0);
            batch = [];
          }
        }
      });
      child.unref();
      // The pipe would keep this process alive; if this process dies, nvidia-smi dies of SIGPIPE on its next line.
      (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    },
    latestW: () => latest,
    stop() {
      child?.kill('SIGTERM');
      child = undefined;
    },
  };
}

function polling(hw: Hardware, exec: Exec, everyMs: number): PowerMonitor {
  let timer: NodeJS.Timeout | undefined;
  let latest: number | undefined;
  let busy = false;
  const tick = (): void => {
    if (busy) return;
    busy = true;
    void readGpuPowerW(hw.source, exec)
      .then((w) => {
        if (w !== undefined) latest = w;
      })
      .finally(() => (busy = false));
  };
  return {
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, everyMs);
      timer.unref();
    },
    latestW: () => latest,
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
