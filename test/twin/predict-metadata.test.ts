import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareModel } from '../../src/report/compare-model.js';
import { fittedMetadata } from '../../src/twin/fitted-metadata.js';
import { observe, selectObservations } from '../../src/twin/observe.js';
import { predict } from '../../src/twin/predict.js';
import { loadTwin, twinYaml } from '../../src/twin/twin-file.js';
import { fitTwin } from '../../src/twin/twin.js';
import { SEEDS, seedResult } from '../report/seeds.js';
import { demoMeasured, planOf } from './helpers.js';

// The review: `compare <seed> <prediction>` listed about 15 "Metadata differences" with B: — (engine version,
// quantization, hardware type, launch command...) because a prediction carried none of the fitted run's.
const measured = demoMeasured();
measured.engine = {
  name: 'vllm',
  version: '0.30.1rc1.dev162+g2617fe938',
  commit: '2617fe938355',
  quantization: 'FP8',
  backend: 'cuda',
  repository: 'github.com/vllm-project/vllm',
  detectedBy: '/version',
};
measured.hardware = {
  type: 'Discrete GPU',
  gpuName: 'RTX PRO 6000 Blackwell Server Edition',
  gpuCount: 8,
  gpuMemoryGb: 96,
  os: 'linux',
  source: 'nvidia-smi',
};
measured.launchCommand = 'vllm serve m --max-num-seqs 8 --api-key <redacted>';
measured.target.revision = 'main';

const obs = selectObservations(observe([{ result: measured, source: 'run' }]), {
  decode: new Set(['1024x1', '1024x4', '1024x8', '1024x16', '8192x1', '8192x4']),
  prefill: new Set([1024, 8192]),
});
const twin = fitTwin(obs, planOf(measured));

describe("a prediction carries the fitted run's metadata", () => {
  it('names the engine, hardware, launch command and revision the fitted results recorded', () => {
    const p = predict(twin.profile, twin.meta);
    const { detectedBy: _how, ...engine } = measured.engine;
    expect(p.engine).toEqual({ ...engine, detectedBy: 'twin' });
    expect(p.hardware).toMatchObject(measured.hardware);
    expect(p.launchCommand).toBe(measured.launchCommand);
    expect(p.target.revision).toBe('main');
    // A what-if that changes the server's own settings is not the recorded command any more.
    expect(predict(twin.profile, twin.meta, { maxNumSeqs: 16 }).launchCommand).toBeUndefined();
    expect(predict(twin.profile, twin.meta, { kvCapacity: { factor: 2 } }).launchCommand).toBeUndefined();
    expect(predict(twin.profile, twin.meta, { contexts: [1024] }).launchCommand).toBe(measured.launchCommand);
  });

  it('keeps only the fields the fitted results agree on', () => {
    const other = structuredClone(measured);
    other.engine.version = '0.31.0';
    other.hardware.os = undefined;
    const m = fittedMetadata([measured, other]);
    expect(m.engine.version).toBeUndefined(); // two versions: neither is the twin's
    expect(m.engine.quantization).toBe('FP8');
    expect(m.hardware.os).toBe('linux'); // one result did not say: the other's stands
  });

  it('writes it into twin.yaml; a twin from before it still loads and predicts as it did', () => {
    const dir = mkdtempSync(join(tmpdir(), 'twin-meta-'));
    try {
      writeFileSync(join(dir, 'new.yaml'), twinYaml(twin));
      expect(loadTwin(join(dir, 'new.yaml')).meta.fitted).toEqual(twin.meta.fitted);
      const { fitted: _f, ...oldMeta } = twin.meta;
      writeFileSync(
        join(dir, 'old.yaml'),
        twinYaml({ ...twin, profile: { ...twin.profile, twin: oldMeta } }),
      );
      const old = loadTwin(join(dir, 'old.yaml'));
      expect(old.meta.fitted).toBeUndefined();
      const p = predict(old.profile, old.meta);
      expect(p.engine).toEqual({ name: 'vllm', detectedBy: 'twin' });
      expect(p.hardware.source).toBe('sim');
      expect(p.launchCommand).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('compare lists no field a prediction merely lacks; a real difference stays', () => {
    const p = predict(twin.profile, twin.meta, { maxNumSeqs: 16 }); // no launch command: not known
    const diffs = compareModel([measured, p]).metaDiffs;
    expect(diffs.filter((d) => d.values[1] === '')).toEqual([]);
    expect(diffs.map((d) => d.field)).not.toContain('Launch command');
    expect(diffs.map((d) => d.field)).toContain('Run · Prefill mode');
    // Nor one an imported v0.6.2 report never printed (API, sampling, ignore EOS): unknown, not different.
    const seed = seedResult(SEEDS[0].id);
    const vsSeed = compareModel([seed, p]).metaDiffs;
    expect(vsSeed.filter((d) => d.values.includes(''))).toEqual([]);
    expect(vsSeed.map((d) => d.field)).toContain('Run · Served model');
    // A measured run without a field the other has is a difference: it was not there.
    const bare = structuredClone(measured);
    bare.launchCommand = undefined;
    expect(compareModel([measured, bare]).metaDiffs.map((d) => d.field)).toContain('Launch command');
  });
});
