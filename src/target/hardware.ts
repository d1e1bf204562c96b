import { execFile } from 'node:child_process';
import os from 'node:os';
import type { Hardware } from '../results/schema.js';
import { checkOptions, keysOf } from '../option-keys.js';

// Local GPUs through the vendor tools; absent tools are normal (CPU boxes, remote servers).
export const NVIDIA_QUERY = [
  '--query-gpu=name,memory.total,driver_version,power.draw',
  '--format=csv,noheader,nounits',
];
export const NVIDIA_POWER_QUERY = ['--query-gpu=power.draw', '--format=csv,noheader,nounits'];
export const ROCM_QUERY = [
  '--showproductname',
  '--showmeminfo',
  'vram',
  '--showdriverversion',
  '--showpower',
  '--json',
];

export interface GpuInfo {
  name: string;
  memoryMiB?: number;
  driver?: string;
  powerW?: number;
}

export type Exec = (cmd: string, args: string[]) => Promise<string | undefined>;

export const execTool: Exec = (cmd, args) =>
  new Promise((resolve) => {
    execFile(cmd, args, { timeout: 4000, maxBuffer: 1 << 20 }, (err, stdout) =>
      resolve(err ? undefined : stdout),
    );
  });

export function parseNvidiaSmi(text: string): GpuInfo[] {
  const gpus: GpuInfo[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const [name, mem, driver, power] = line.split(',').map((s) => s.trim());
    if (!name) continue;
    gpus.push({ name, memoryMiB: numOrUndef(mem), driver: driver || undefined, powerW: numOrUndef(power) });
  }
  return gpus;
}

// rocm-smi --json: {"card0": {"Card series": ..., "VRAM Total Memory (B)": ..., power...}, "system": {...}}.
export function parseRocmSmi(text: string): GpuInfo[] {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    return [];
  }
  if (!j || typeof j !== 'object') return [];
  const all = j as Record<string, Record<string, string>>;
  const driver = all.system?.['Driver version'];
  const gpus: GpuInfo[] = [];
  for (const [key, card] of Object.entries(all)) {
    if (!/^card\d+$/.test(key) || !card) continue;
    const name =
      card['Card Series'] ?? card['Card series'] ?? card['Card model'] ?? card['Device Name'] ?? 'AMD GPU';
    const bytes = numOrUndef(card['VRAM Total Memory (B)']);
    const powerKey = Object.keys(card).find((k) => /Power \(W\)/.test(k));
    gpus.push({
      name,
      memoryMiB: bytes === undefined ? undefined : bytes / 1048576,
      driver: card['Driver version'] ?? driver,
      powerW: powerKey ? numOrUndef(card[powerKey]) : undefined,
    });
  }
  return gpus;
}

// GB as the seeds print them: 97887 MiB -> 96 (8 × 96 GB = 768 GB).
export function memoryGb(mib: number): number {
  const gib = mib / 1024;
  return gib >= 10 ? Math.round(gib) : Math.round(gib * 10) / 10;
}

export interface HardwareOverrides {
  gpuName?: string;
  gpuCount?: number;
  gpuMemoryGb?: number;
  type?: string;
}

export function hardwareFromGpus(gpus: GpuInfo[], source: Hardware['source']): Hardware {
  const hw: Hardware = { os: os.platform() };
  const first = gpus[0];
  if (!first) return { ...hw, source: 'none' };
  hw.type = 'Discrete GPU';
  hw.gpuName = first.name.replace(/^NVIDIA\s+(?=RTX|H\d|A\d|B\d|L\d|GB\d|GH\d)/, '');
  hw.gpuCount = gpus.length;
  if (first.memoryMiB) {
    hw.gpuMemoryGb = memoryGb(first.memoryMiB);
    hw.gpuMemoryGbTotal = hw.gpuMemoryGb * gpus.length;
  }
  if (first.driver) hw.gpuDriver = first.driver;
  hw.source = source;
  return hw;
}

const OVERRIDE_KEYS = keysOf<HardwareOverrides>({
  gpuName: true,
  gpuCount: true,
  gpuMemoryGb: true,
  type: true,
});

export function applyHardwareOverrides(hw: Hardware, o: HardwareOverrides): Hardware {
  checkOptions('applyHardwareOverrides', o, OVERRIDE_KEYS);
  const out = { ...hw };
  const any = o.gpuName !== undefined || o.gpuCount !== undefined || o.gpuMemoryGb !== undefined;
  if (o.gpuName !== undefined) out.gpuName = o.gpuName;
  if (o.gpuCount !== undefined) out.gpuCount = o.gpuCount;
  if (o.gpuMemoryGb !== undefined) out.gpuMemoryGb = o.gpuMemoryGb;
  if (o.type !== undefined) out.type = o.type;
  if (any) {
    // GPUs given by flags on a machine whose tools saw none: the server's GPUs, not this CPU.
    if (hw.source === 'os' && o.type === undefined) out.type = 'Discrete GPU';
    out.type ??= 'Discrete GPU';
    out.source = hw.source && hw.source !== 'none' && hw.source !== 'os' ? hw.source : 'flags';
    if (out.gpuMemoryGb !== undefined && out.gpuCount !== undefined)
      out.gpuMemoryGbTotal = out.gpuMemoryGb * out.gpuCount;
  }
  return out;
}

export async function readLocalGpus(
  exec: Exec = execTool,
): Promise<{ gpus: GpuInfo[]; source: Hardware['source'] }> {
  const nv = await exec('nvidia-smi', NVIDIA_QUERY);
  if (nv !== undefined) {
    const gpus = parseNvidiaSmi(nv);
    if (gpus.length) return { gpus, source: 'nvidia-smi' };
  }
  const rocm = await exec('rocm-smi', ROCM_QUERY);
  if (rocm !== undefined) {
    const gpus = parseRocmSmi(rocm);
    if (gpus.length) return { gpus, source: 'rocm-smi' };
  }
  return { gpus: [], source: 'none' };
}

export interface CpuFacts {
  model: string;
  cores: number; // logical
  memoryBytes: number;
}

export const readLocalCpu = (): CpuFacts => {
  const cpus = os.cpus();
  return { model: cpus[0]?.model ?? '', cores: cpus.length, memoryBytes: os.totalmem() };
};

// A local server where no GPU tool answers computes on the CPU (llama.cpp is a real target there): the CPU's
// model, logical cores and system memory are its hardware, as a GPU's name, count and memory are elsewhere.
export function hardwareFromCpu(c: CpuFacts): Hardware {
  const hw: Hardware = { os: os.platform(), type: 'CPU (no GPU found)', source: 'os' };
  const model = c.model.replace(/\s+/g, ' ').trim();
  if (model) hw.cpu = model;
  if (c.cores > 0) hw.cpuCores = c.cores;
  if (c.memoryBytes > 0) hw.systemMemoryGb = memoryGb(c.memoryBytes / 1048576);
  return hw;
}

export interface DetectHardwareOptions {
  local: boolean;
  overrides?: HardwareOverrides;
  exec?: Exec;
  cpu?: () => CpuFacts;
}
const DETECT_KEYS = keysOf<DetectHardwareOptions>({ local: true, overrides: true, exec: true, cpu: true });

// `local` false: the server is elsewhere, so this machine's GPUs (or CPU) say nothing about it.
export async function detectHardware(opts: DetectHardwareOptions = { local: true }): Promise<Hardware> {
  checkOptions('detectHardware', opts, DETECT_KEYS);
  let base: Hardware = { os: undefined, source: 'none' };
  if (opts.local) {
    const { gpus, source } = await readLocalGpus(opts.exec);
    base = gpus.length ? hardwareFromGpus(gpus, source) : hardwareFromCpu((opts.cpu ?? readLocalCpu)());
  }
  return applyHardwareOverrides(base, opts.overrides ?? {});
}

// Sum of board power of all local GPUs, or undefined when no tool answers with numbers.
export async function readGpuPowerW(
  source: Hardware['source'],
  exec: Exec = execTool,
): Promise<number | undefined> {
  let gpus: GpuInfo[] = [];
  if (source === 'nvidia-smi') {
    const out = await exec('nvidia-smi', NVIDIA_POWER_QUERY);
    gpus =
      out === undefined
        ? []
        : out
            .split(/\r?\n/)
            .filter((l) => l.trim())
            .map((l) => ({ name: '', powerW: numOrUndef(l) }));
  } else if (source === 'rocm-smi') {
    const out = await exec('rocm-smi', ['--showpower', '--json']);
    gpus = out === undefined ? [] : parseRocmSmi(out);
  }
  const watts = gpus.map((g) => g.powerW).filter((w): w is number => w !== undefined);
  return watts.length ? watts.reduce((a, b) => a + b, 0) : undefined;
}

function numOrUndef(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(String(s).trim());
  return s.trim() !== '' && Number.isFinite(n) ? n : undefined;
}
