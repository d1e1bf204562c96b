import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliCommand, runCli, runCliInProcess } from '../helpers/cli.js';

// The bin as users start it: a real Node process (exit codes, signals). Everything else runs main() in-process.
describe('the bin', () => {
  it('prints its version and exits 0; a typo exits non-zero with a suggestion', async () => {
    const ok = await runCli(['--version']);
    expect(ok.code).toBe(0);
    expect(ok.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const bad = await runCli(['runn']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error \[USAGE\]: unknown command 'runn' \(did you mean run\?\)\..*\n$/);
  });

  it('gives the same exit code and one-line error as main() in-process', async () => {
    const args = ['report', '/nonexistent/result.json'];
    const [bin, inProcess] = await Promise.all([runCli(args), runCliInProcess(args)]);
    expect(inProcess.stderr).toMatch(/^error \[\w+\]: .*\n$/);
    expect(inProcess.code).toBeGreaterThan(1);
    expect(bin).toEqual(inProcess);
  });

  it('sim prints its URL, serves, and exits cleanly on SIGTERM', async () => {
    const { command, args } = cliCommand();
    const child = spawn(command, [...args, 'sim', '--port', '0', '--flavor', 'sglang', '--seed', '3'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no URL printed')), 100_000);
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const m = /^(http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    const info = (await (await fetch(`${url}/get_server_info`)).json()) as { max_total_num_tokens: number };
    expect(info.max_total_num_tokens).toBe(300000);
    const code = await new Promise<number | null>((resolve) => {
      child.on('close', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
  });

  it('ends quietly when its reader closes the pipe early (| head): exit 0, no stack trace', async () => {
    const { command, args } = cliCommand();
    for (const argv of [
      ['deploy', '--help'],
      ['report', 'test/fixtures/seeds/001_e957ef8128caa214.txt'],
    ]) {
      const child = spawn(command, [...args, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      // The reader takes nothing and goes away before the first write, as `| head -0` does.
      child.stdout.destroy();
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      expect(err).toBe('');
      expect(code).toBe(0);
    }
  });
});
