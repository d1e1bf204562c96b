import type { Command } from 'commander';
import { BenchError } from '../errors.js';
import type { CliIo } from './io.js';

interface ServeFlags {
  host: string;
  port: string;
  allowRemote?: boolean;
  indexCache?: string;
}

export function register(program: Command, io: CliIo): void {
  program
    .command('serve')
    .description('browse, filter and compare result folders in a local web app (loopback only by default)')
    .argument('[dirs...]', 'folders that hold run folders (searched for result.json)', ['results'])
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0: a free one)', '8321')
    .option(
      '--allow-remote',
      'allow listening on a non-loopback address (anyone who can reach it reads the results)',
    )
    .option(
      '--index-cache <file>',
      'keep the run index in this JSON file so a restart skips unchanged results',
    )
    .action(async (dirs: string[], flags: ServeFlags) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new BenchError('USAGE', `--port must be an integer from 0 to 65535, not "${flags.port}".`);
      // Loaded on use: every other command starts faster without the server's modules.
      const { isLoopback, startServe } = await import('../web/server.js');
      const s = await startServe({
        roots: dirs,
        host: flags.host,
        port,
        allowRemote: flags.allowRemote === true,
        ...(flags.indexCache ? { cacheFile: flags.indexCache } : {}),
      });
      if (!isLoopback(flags.host))
        io.stderr.write(
          `warning: serving on ${flags.host}: anyone who can reach this port can read every result, including launch commands.\n`,
        );
      io.stdout.write(
        `results browser at ${s.url} (${(await s.index.runs()).length} runs; Ctrl-C to stop)\n`,
      );
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
