import type { Command } from 'commander';
import { withOptions } from '../config/resolve.js';
import type { CliIo } from './io.js';

export function register(program: Command, io: CliIo): void {
  const cmd = program
    .command('serve')
    .description('browse, filter and compare result folders in a local web app (loopback only by default)')
    .argument('[dirs...]', 'folders that hold run folders (searched for result.json)', ['results']);
  const resolve = withOptions(cmd, 'serve');
  cmd.action(async (dirs: string[], flags: Record<string, unknown>) => {
    const o = resolve(flags).options;
    // Loaded on use: every other command starts faster without the server's modules.
    const { isLoopback, startServe } = await import('../web/server.js');
    const s = await startServe({
      roots: dirs,
      host: o.host,
      port: o.port,
      allowRemote: o.allowRemote === true,
      ...(o.indexCache ? { cacheFile: o.indexCache } : {}),
      ...(o.slo ? { slo: o.slo } : {}),
    });
    if (!isLoopback(o.host))
      io.stderr.write(
        `warning: serving on ${o.host}: anyone who can reach this port can read every result, including launch commands.\n`,
      );
    const runs = (await s.index.runs()).length;
    io.stdout.write(`results browser at ${s.url} (${runs} run${runs === 1 ? '' : 's'}; Ctrl-C to stop)\n`);
    await new Promise<void>((done) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        void s.close().then(done);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  });
}
