import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { findLaunchCommand } from '../../src/target/launch-command.js';

// A real process in /proc (integration tier: a child process); the parsing and redaction on a fake /proc, and an
// in-process listener that is not reported, are test/target/launch-command.test.ts.
describe('launch command of a local listener', () => {
  it.runIf(process.platform === 'linux')('finds a real process listening on a loopback port', async () => {
    const secret = 'sk-real-process-secret-991';
    const child = spawn(
      process.execPath,
      [
        '-e',
        "const s=require('http').createServer();s.listen(0,'127.0.0.1',()=>console.log(s.address().port))",
        '--',
        '--api-key',
        secret,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    try {
      const port = await new Promise<number>((resolve) =>
        child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))),
      );
      const cmd = await findLaunchCommand(port);
      expect(cmd).toContain('--api-key <redacted>');
      expect(cmd).not.toContain(secret);
      expect(cmd).toContain('createServer');
    } finally {
      child.kill();
    }
  });
});
