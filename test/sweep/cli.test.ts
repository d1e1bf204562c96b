import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'sweep-cli-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('sweep --dry-run', () => {
  it('prints every command, what the links set and each estimate, and the total', async () => {
    const serve = file('llama.yaml', 'np: [2, 4]\nc: 65536\n');
    const r = await runCliInProcess([
      'sweep',
      '--serve-cmd',
      'llama-server -m model.gguf --port {port} -np {np} -c {c}',
      '--serve-params',
      serve,
      '--link-vars',
      'np=concurrency,c/np=max-model-len',
      '--duration',
      '10',
      '--max-output',
      '1K',
      '--prefill-repeats', // one cold prompt per point: the estimate below counts one (the default is 3)
      '1',
      '--out',
      join(dir, 'out'),
      '--run-id',
      'dry',
      '--dry-run',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(
      `sweep dry: 2 server configurations, 2 runs; would write ${join(dir, 'out', 'dry')}`,
    );
    expect(r.stdout).toContain(
      '[1/2] np=2 c=65536\n  llama-server -m model.gguf --port {port} -np 2 -c 65536\n',
    );
    // 65536 / 2 slots = 32768: contexts 8K, 16K and the largest under 32768 - 1K output - 1K margin
    expect(r.stdout).toContain(
      '  np=2: concurrency 1,2\n  c/np=32768: contexts up to a max model length of 32768\n',
    );
    expect(r.stdout).toContain('  plan: contexts 8K, 16K, 30K × concurrency 1,2\n');
    expect(r.stdout).toContain('  c/np=16384: contexts up to a max model length of 16384\n');
    expect(r.stdout).toContain('  plan: contexts 8K, 14K × concurrency 1,2,4\n');
    // 3 contexts x 2 levels and 2 x 3: 12 cells of ~10.3 s windows each, plus prefill
    expect(r.stdout).toMatch(/6 cells to run; estimated 7\d s\n[\s\S]*6 cells to run; estimated 7\d s\n/);
    expect(r.stdout).toContain("\ntotal: 12 cells, estimated 2 min, plus each server's start");
    expect(r.stdout).not.toContain('{np}');
  });

  it('refuses a folder that holds a sweep with the command that continues it', async () => {
    const serve = file('again.yaml', 'np: [2]\n');
    mkdirSync(join(dir, 'held', 'sw1'), { recursive: true });
    writeFileSync(join(dir, 'held', 'sw1', 'sweep.json'), '{}');
    const r = await runCliInProcess([
      'sweep',
      '--serve-cmd',
      'llama-server --port {port} -np {np}',
      '--serve-params',
      serve,
      '--out',
      join(dir, 'held'),
      '--run-id',
      'sw1',
      '--dry-run',
    ]);
    expect(r.stderr).toBe(
      `error [USAGE]: ${join(dir, 'held', 'sw1')} already holds a sweep. Continue it with ` +
        `\`npx llm-inference-bench sweep --resume ${join(dir, 'held', 'sw1')}\`, or pick another --run-id.\n`,
    );
  });

  it('says when contexts wait for the server, and writes nothing', async () => {
    const serve = file('vllm.json', JSON.stringify([{ max_num_seqs: 64 }]));
    const r = await runCliInProcess([
      'sweep',
      '--serve-cmd',
      'vllm serve m --port {port}',
      '--serve-params',
      serve,
      '--out',
      join(dir, 'out2'),
      '--dry-run',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  vllm serve m --port {port} --max-num-seqs 64\n');
    expect(r.stdout).toContain('  no estimate: contexts come from the server once it runs');
  });
});

describe('sweep input errors: one line, exit 2', () => {
  const run = (args: string[]) => runCliInProcess(['sweep', ...args, '--out', join(dir, 'e'), '--dry-run']);

  it('needs a command and a params file', async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error \[USAGE\]: sweep needs --serve-cmd and --serve-params/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('names the path of a bad value, a missing file, bad YAML', async () => {
    const bad = file('bad.yaml', '- np: 2\n- np: {x: 1}\n');
    const r = await run(['--serve-cmd', 's --port {port}', '--serve-params', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error [CONFIG_INVALID]: ${bad}: [1].np: expected a number, text or true/false, or a list of them. See docs/sweep.md "Params files" for the shapes a params file takes.\n`,
    );
    const missing = await run(['--serve-cmd', 's --port {port}', '--serve-params', join(dir, 'nope.yaml')]);
    expect(missing.stderr).toMatch(
      /^error \[CONFIG_INVALID\]: cannot read --serve-params .*nope\.yaml: no such file or folder\./,
    );
    const yaml = file('broken.yaml', 'np: [2, 4\n');
    const broken = await run(['--serve-cmd', 's --port {port}', '--serve-params', yaml]);
    expect(broken.stderr).toMatch(
      /^error \[CONFIG_INVALID\]: --serve-params .*broken\.yaml is not valid YAML or JSON: /,
    );
    expect(broken.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses a template placeholder no configuration fills and a link to nothing', async () => {
    const p = file('np.yaml', 'np: [1, 2]\n');
    const r = await run(['--serve-cmd', 's --port {port} -c {ctx}', '--serve-params', p]);
    expect(r.stderr).toMatch(
      /^error \[CONFIG_INVALID\]: --serve-cmd uses \{ctx\}, which the configuration "np=1" does not set\./,
    );
    const l = await run([
      '--serve-cmd',
      's --port {port}',
      '--serve-params',
      p,
      '--link-vars',
      'slots=concurrency',
    ]);
    expect(l.stderr).toMatch(/^error \[CONFIG_INVALID\]: --link-vars names slots, which no configuration/);
  });
});
