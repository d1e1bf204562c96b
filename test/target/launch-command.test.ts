import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cmdlineToShell,
  findLaunchCommand,
  isLoopbackOrLocal,
  listeningInodes,
} from '../../src/target/launch-command.js';

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 424242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F40 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000  1000        0 515151 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1111 1 0000000000000000 100 0 0 10 0
`;

describe('launch command of the local listener', () => {
  it('reads LISTEN rows of /proc/net/tcp for the port', () => {
    expect(listeningInodes(TCP, 8000)).toEqual(['424242']);
    expect(listeningInodes(TCP, 22)).toEqual(['1111']);
    expect(listeningInodes(TCP, 9999)).toEqual([]);
  });

  it('finds the process through a fake /proc and redacts its command line', async () => {
    const root = mkdtempSync(join(tmpdir(), 'fake-proc-'));
    mkdirSync(join(root, 'net'));
    writeFileSync(join(root, 'net/tcp'), TCP);
    writeFileSync(join(root, 'net/tcp6'), '  sl  local_address\n');
    mkdirSync(join(root, '77/fd'), { recursive: true });
    symlinkSync('socket:[424242]', join(root, '77/fd/5'));
    symlinkSync('/dev/null', join(root, '77/fd/0'));
    const args = [
      'vllm',
      'serve',
      'm',
      '--api-key',
      'sk-live-123',
      '--speculative-config',
      '{"method":"dflash","num_speculative_tokens":7}',
    ];
    writeFileSync(join(root, '77/cmdline'), args.join('\0') + '\0');
    expect(await findLaunchCommand(8000, root)).toBe(
      `vllm serve m --api-key <redacted> --speculative-config '{"method":"dflash","num_speculative_tokens":7}'`,
    );
    expect(await findLaunchCommand(9999, root)).toBeUndefined();
  });

  it('quotes arguments for the shell', () => {
    expect(cmdlineToShell(Buffer.from(['a', 'b c', "it's", ''].join('\0') + '\0'))).toBe(
      `a 'b c' 'it'\\''s' ''`,
    );
  });

  it('knows which hosts are this machine', () => {
    expect(isLoopbackOrLocal('127.0.0.1', [])).toBe(true);
    expect(isLoopbackOrLocal('localhost', [])).toBe(true);
    expect(isLoopbackOrLocal('[::1]', [])).toBe(true);
    expect(isLoopbackOrLocal('10.1.2.3', ['10.1.2.3'])).toBe(true);
    expect(isLoopbackOrLocal('gpu-box.example', ['10.1.2.3'])).toBe(false);
  });
});

describe('launch command of an in-process server', () => {
  it('is not reported (it would be this tool, not an engine)', async () => {
    const { createServer } = await import('node:http');
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    try {
      const port = (s.address() as { port: number }).port;
      expect(await findLaunchCommand(port)).toBeUndefined();
    } finally {
      await new Promise((r) => s.close(r));
    }
  });
});
