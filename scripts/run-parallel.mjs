// `npm test`'s checks side by side: the typecheck and the lint are one process each, so on a busy 2-core laptop
// they finish sooner together than one after the other. Each one's output is printed whole when it ends; the exit
// code is the first failure's.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const runs = names.map(
  (name) =>
    new Promise((resolve) => {
      const child = spawn(npm, ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
      const out = [];
      child.stdout.on('data', (b) => out.push(b));
      child.stderr.on('data', (b) => out.push(b));
      child.on('close', (code, signal) => {
        const text = Buffer.concat(out).toString();
        process.stdout.write(
          `> ${name}: ${code === 0 ? 'ok' : `failed (${signal ?? `exit ${code}`})`}\n${text}`,
        );
        resolve(code ?? 1);
      });
    }),
);
const codes = await Promise.all(runs);
process.exitCode = codes.find((c) => c !== 0) ?? 0;
