import { readdir, readFile, readlink } from 'node:fs/promises';
import { redactCommandLine } from './redact.js';

// The command line of the local process listening on `port` (Linux /proc), redacted; undefined when the
// server is elsewhere, runs as another user whose fds we cannot read, or this is not Linux.
export async function findLaunchCommand(port: number, procRoot = '/proc'): Promise<string | undefined> {
  const inodes = new Set<string>();
  for (const file of ['net/tcp', 'net/tcp6']) {
    const text = await readFile(`${procRoot}/${file}`, 'utf8').catch(() => '');
    for (const inode of listeningInodes(text, port)) inodes.add(inode);
  }
  if (inodes.size === 0) return undefined;
  // Our own process (an in-process sim, as in `demo`) has no server launch command worth reporting.
  const self = procRoot === '/proc' ? String(process.pid) : '';
  const pids = (await readdir(procRoot).catch(() => [] as string[])).filter(
    (d) => /^\d+$/.test(d) && d !== self,
  );
  for (const pid of pids) {
    const fds = await readdir(`${procRoot}/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(`${procRoot}/${pid}/fd/${fd}`).catch(() => '');
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m && inodes.has(m[1]!)) {
        const raw = await readFile(`${procRoot}/${pid}/cmdline`).catch(() => undefined);
        if (!raw || raw.length === 0) return undefined;
        return redactCommandLine(cmdlineToShell(raw));
      }
    }
  }
  return undefined;
}

// Rows of /proc/net/tcp[6] in LISTEN state (0A) on the port; the inode is the 10th column.
export function listeningInodes(procNetTcp: string, port: number): string[] {
  const out: string[] = [];
  for (const line of procNetTcp.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    const local = cols[1];
    if (!local || cols[3] !== '0A') continue;
    const portHex = local.split(':')[1];
    if (portHex && parseInt(portHex, 16) === port && cols[9] && cols[9] !== '0') out.push(cols[9]);
  }
  return out;
}

export function cmdlineToShell(raw: Buffer): string {
  const args = raw.toString('utf8').split('\0');
  if (args.at(-1) === '') args.pop();
  return args.map(shellQuote).join(' ');
}

export function shellQuote(arg: string): string {
  if (arg === '') return "''";
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function isLoopbackOrLocal(host: string, localAddresses: string[]): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    h === 'localhost' || h.startsWith('127.') || h === '::1' || h === '0.0.0.0' || localAddresses.includes(h)
  );
}
