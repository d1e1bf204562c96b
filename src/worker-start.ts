import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

// Starts a worker on a module of this package: the compiled .js in dist; from source (tsx, vitest) the .ts file,
// loaded after tsx's hooks are registered inside the worker (Node 20 does not carry --import hooks into a worker).
export function startModuleWorker(tsUrl: URL, jsUrl: URL, options: WorkerOptions = {}): Worker {
  if (!existsSync(fileURLToPath(tsUrl))) return new Worker(jsUrl, options);
  const api = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const boot = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(tsUrl.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

// Node's arguments to run a module of this package as a process of its own: the compiled .js, or from source
// the .ts file through tsx's hooks.
export function moduleProcessArgs(tsUrl: URL, jsUrl: URL): string[] {
  const ts = fileURLToPath(tsUrl);
  if (!existsSync(ts)) return [fileURLToPath(jsUrl)];
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
  return ['--import', tsx, ts];
}
